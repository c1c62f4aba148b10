import { it } from 'vitest';
import { exec } from 'node:child_process'; import { promisify } from 'node:util'; const run = async (c: string) => (await promisify(exec)(c)).stdout;
import { startTestNode } from '../helpers/testNode';
it('probe', async () => {
  const t = await startTestNode({ devAccounts: 0 });
  try {
    console.log(await run(`curl -sv -I ${t.url}/blocks/0 ${t.url}/blocks/0 2>&1 || true`));
    console.log(await run(`curl -sv -X HEAD --max-time 3 ${t.url}/blocks/0 2>&1 || true`));
  } finally { await t.cleanup(); }
}, 60000);
