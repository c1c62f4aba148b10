/** `npm run docs:types`: rewrites the generated types section of docs/PROTOCOL.md from the registry. */
import { readFileSync, writeFileSync } from 'node:fs';
import { typesSection, withTypesSection } from '../src/modules/docs';
import { ENTRIES } from '../src/modules/registry';

const path = new URL('../docs/PROTOCOL.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = withTypesSection(before, typesSection(ENTRIES));
writeFileSync(path, after);
console.log(after === before ? 'docs/PROTOCOL.md: types section up to date' : 'docs/PROTOCOL.md: types section rewritten');
