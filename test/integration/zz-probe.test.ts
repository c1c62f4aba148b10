import { it } from 'vitest';
import { execSync } from 'node:child_process';
import { startTestNode } from '../helpers/testNode';
it('probe', async () => {
  const t = await startTestNode({ devAccounts: 0 });
  try {
    console.log(execSync(`curl -sv -I ${t.url}/blocks/0 ${t.url}/blocks/0 2>&1 || true`).toString());
    console.log(execSync(`curl -sv -X HEAD --max-time 3 ${t.url}/blocks/0 2>&1 || true`).toString());
  } finally { await t.cleanup(); }
}, 60000);
