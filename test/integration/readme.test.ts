import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOwned } from '../helpers/processes';
import { startTestNode, type TestNode } from '../helpers/testNode';

/**
 * The README's "First steps" block, run as written (bash, from the repository root) against a
 * fresh node: the only changes are where ./data points (the node's data directory) and which
 * node the CLI and the Ethereum example talk to ($CAIRN_NODE, $CAIRN_RPC).
 */
const root = resolve(__dirname, '../..');
let t: TestNode;

beforeAll(async () => {
  // Blocks at the pace of `npm start` (500 ms slots), empty ones every 2 s: a proposal's
  // 10-block vote must stay open across two CLI runs, as it does for a reader.
  t = await startTestNode({ devAccounts: 3, slotMs: 500, idleBlockMs: 2000 });
}, 60_000);
afterAll(async () => {
  for (const f of ['me.json', 'oracle.json', 'oracle.log']) rmSync(resolve(root, f), { force: true });
  await t?.cleanup();
});

describe('README', () => {
  it('"First steps" runs as written: key, funding, a final transfer, a contract, ' +
    'stake, a proposal voted and followed to EXECUTED, the example oracle, the explorer', async () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const block = /```sh first-steps\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'README has a "sh first-steps" block').toBeTruthy();
    const script = `set -euo pipefail\n${block!.replaceAll('./data/', `${t.dataDir}/`)}`;
    // Its own process group: a step that fails leaves no background process (the oracle) running.
    const { stdout } = await runOwned('bash', ['-c', script], {
      cwd: root,
      env: { ...process.env, CAIRN_NODE: t.url, CAIRN_RPC: `http://127.0.0.1:${t.node.config.rpcPort}` },
      timeoutMs: 240_000,
    }).catch((e: Error & { stdout?: string; stderr?: string }) => {
      // Which step failed: the end of what the script printed (the command alone says nothing).
      throw new Error(
        `README first steps failed: ${e.message.split('\n')[0]}\n--- stdout (end) ` +
          `---\n${(e.stdout ?? '').slice(-3000)}\n--- stderr (end) ---\n${(e.stderr ?? '').slice(-3000)}`,
      );
    });
    // Every command printed JSON; pick out the ones that matter.
    expect(stdout).toMatch(/"outcome": "finalized"/);
    expect(stdout).toMatch(/"nonce": /);
    expect(stdout).toMatch(/"contract":"0x[0-9a-fA-F]{40}","count":"2","events":2/);
    const me = JSON.parse(readFileSync(resolve(root, 'me.json'), 'utf8')) as { address: string };
    const account = (await t.get(`/address/${me.address}`)).body;
    expect(BigInt(account.staked)).toBe(10_000_000_000n);
    const proposals = (await t.get('/governance/proposals')).body.proposals as {
      proposer: string;
      status: string;
      action: { param: string };
      tally: { voters: number };
    }[];
    // Voted on by the reader and the dev validator, and followed to its end.
    expect(proposals.find((p) => p.proposer === me.address && p.action.param === 'BANK_SIZE')).toMatchObject({
      status: 'EXECUTED',
      tally: { voters: 2 },
    });
    expect(stdout).toMatch(/"cursor": \d+/);
    // The example oracle answered the task designated to it.
    const task = (await t.get('/ai/tasks')).body.tasks.find((x: { oracle: string }) => x.oracle === me.address);
    expect(task).toMatchObject({ result: '5', mode: 'designated' });
    // The last step prints the explorer's page of the reader's account (the node served the explorer).
    expect(stdout.trim().split('\n').pop()).toBe(`${t.url}/#/address/${me.address}`);
  }, 300_000);
});
