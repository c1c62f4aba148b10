import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../helpers/testNode';

/**
 * The README's "First steps" block, run as written (bash, from the repository root) against a
 * fresh node: the only changes are where ./data points (the node's data directory) and which
 * node the CLI and the Ethereum example talk to ($CAIRN_NODE, $CAIRN_RPC).
 */
const root = resolve(__dirname, '../..');
let t: TestNode;

beforeAll(async () => {
  t = await startTestNode({ devAccounts: 3, idleBlockMs: 100 });
}, 60_000);
afterAll(async () => {
  for (const f of ['me.json', 'oracle.json', 'oracle.log']) rmSync(resolve(root, f), { force: true });
  await t?.cleanup();
});

describe('README', () => {
  it('"First steps" runs as written: key, funding, a final transfer, a contract, stake, a proposal followed, the example oracle', async () => {
    const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
    const block = /```sh first-steps\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'README has a "sh first-steps" block').toBeTruthy();
    const script = `set -euo pipefail\n${block!.replaceAll('./data/', `${t.dataDir}/`)}`;
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: root, env: { ...process.env, CAIRN_NODE: t.url, CAIRN_RPC: `http://127.0.0.1:${t.node.config.rpcPort}` }, maxBuffer: 16 << 20, timeout: 240_000 });
    // Every command printed JSON; pick out the ones that matter.
    expect(stdout).toMatch(/"outcome": "finalized"/);
    expect(stdout).toMatch(/"nonce": /);
    expect(stdout).toMatch(/"contract":"0x[0-9a-fA-F]{40}","count":"2","events":2/);
    const me = JSON.parse(readFileSync(resolve(root, 'me.json'), 'utf8')) as { address: string };
    const account = (await t.get(`/address/${me.address}`)).body;
    expect(BigInt(account.staked)).toBe(10_000_000_000n);
    const proposals = (await t.get('/governance/proposals')).body.proposals as { proposer: string; action: { param: string } }[];
    expect(proposals.some((p) => p.proposer === me.address && p.action.param === 'BANK_SIZE')).toBe(true);
    expect(stdout).toMatch(/"cursor": \d+/);
    // The example oracle answered the task designated to it.
    const task = (await t.get('/ai/tasks')).body.tasks.find((x: { oracle: string }) => x.oracle === me.address);
    expect(task).toMatchObject({ result: '5', mode: 'designated' });
  }, 300_000);
});
