#!/usr/bin/env node
// Launcher of the `cairn` CLI: runs the TypeScript sources through tsx (no build step).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
await main();
