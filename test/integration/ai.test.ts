import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Oracle } from '../../examples/oracle';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { buildTx, CairnClient, signTx, type TxInput } from '../../src/sdk';
import type { TaskView } from '../../src/views';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';
import { scratchDirs } from '../helpers/scratch';

const scratch = scratchDirs();

/**
 * The AI layer over HTTP on a real node (RocksDB, real ports, real signatures), from the
 * development genesis (windows of 10 blocks, 100 ms blocks): three example oracles
 * (examples/oracle.ts) serve a quorum task end to end, one of them restarted from its state
 * file between commit and reveal; a designated task is challenged and overturned by jurors.
 */
let t: TestNode;
let client: CairnClient;
let accounts: HybridKeys[];
const dir = scratch('cairn-oracles-');
const oracles: Oracle[] = [];
const running: Promise<void>[] = [];

const start = (k: HybridKeys, i: number) => {
  const o = new Oracle({ node: t.url, keys: k, stateFile: join(dir, `oracle-${i}.json`), pollMs: 100, log: () => {} });
  oracles[i] = o;
  running[i] = o.run();
  return o;
};
const until = (id: string, status: string, ms = 30_000) =>
  waitUntil(
    async () => ((await client.task(id))?.status === status ? ((await client.task(id)) as TaskView) : undefined),
    ms,
  );

beforeAll(async () => {
  t = await startTestNode({ devAccounts: 6, idleBlockMs: 100 });
  client = new CairnClient(t.url);
  accounts = (JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8')) as { secret: string }[]).map(
    (a) => deriveKeys(fromHex(a.secret)),
  );
});
afterAll(async () => {
  for (const o of oracles) o?.stop();
  await Promise.allSettled(running);
  await t?.cleanup();
});

describe('AI tasks over HTTP with the example oracle', () => {
  it('three oracles register and complete a quorum task; one restarts between commit and reveal', async () => {
    const [a, b, c] = accounts;
    [a, b, c].forEach(start);
    await waitUntil(async () => (await client.oracles()).oracles.filter((o) => o.status === 'active').length === 3);
    const requester = accounts[3];
    const sent = await client.sendTx(
      requester,
      { type: 'AI_TASK', reward: 30n * COIN, prompt: 'what is 2 + 3', quorum: 3 },
      { wait: 'included' },
    );
    expect(sent.wait?.record?.result?.status).toBe('success');
    const id = sent.tx.id as Hex;
    // Oracle 0 restarts from its state file once it has committed.
    await waitUntil(async () =>
      (await client.task(id))?.commits.some((x) => x.oracle === a.address) ? true : undefined,
    );
    oracles[0].stop();
    await running[0];
    start(a, 0);
    const decided = await until(id, 'CHALLENGE');
    expect(decided).toMatchObject({ result: '5', mode: 'quorum' });
    expect([...decided.winners].sort()).toEqual([a.address, b.address, c.address].sort());
    expect(decided.reveals.map((r) => r.output)).toEqual(['5', '5', '5']);
    const done = await until(id, 'DONE');
    expect(done.history.map((h) => h.to)).toEqual(expect.arrayContaining(['COMMIT', 'REVEAL', 'CHALLENGE', 'DONE']));
    // The challenge window's end is a step of its own at its last height: a follower of the feed sees it, then the
    // claim.
    expect(done.history).toContainEqual({
      from: 'CHALLENGE',
      to: 'CHALLENGE',
      event: 'DEADLINE',
      height: decided.deadlines.challengeEnds,
    });
    const o = (await client.oracles()).oracles.find((x) => x.address === a.address)!;
    expect(o).toMatchObject({ completed: 1, reputation: 1, duties: 0, status: 'active' });
    // ?for=: a settled task offers nobody anything; without it there is no actions field.
    expect((await client.task(id, { for: a.address }))?.actions).toEqual([]);
    expect((await client.task(id))?.actions).toBeUndefined();
    expect((await t.get(`/ai/tasks/${id}?for=0x1234`)).status).toBe(400);
    // A commit after the window: refused with the machine's code beside its words, and /ai/oracles counts it late (by
    // the code).
    const late = await client.sendTx(
      a,
      { type: 'AI_COMMIT', taskId: id, commit: `0x${'ab'.repeat(32)}` },
      { wait: 'included' },
    );
    expect(late.wait?.record?.result).toMatchObject({
      status: 'failed',
      code: 'AI_WINDOW_CLOSED',
      error: `task ${id} is DONE, not COMMIT: its commit window closed at height ${decided.deadlines.commitEnds}`,
    });
    expect((await client.oracles()).oracles.find((x) => x.address === a.address)).toMatchObject({ late: 1 });
    expect((await client.oracles()).oracles.find((x) => x.address === b.address)).toMatchObject({ late: 0 });
  }, 90_000);

  it('a designated task is challenged and overturned by jurors: the oracle is slashed', async () => {
    const [a, b, c] = accounts;
    const requester = accounts[4];
    const sent = await client.sendTx(
      requester,
      { type: 'AI_TASK', reward: 20n * COIN, prompt: 'summarise the white paper', oracle: a.address },
      { wait: 'included' },
    );
    const id = sent.tx.id as Hex;
    // The challenge and the verdicts are signed ahead: with 100 ms blocks each 10-block
    // window is about a second, shorter than signing on a loaded 2-core machine.
    const presign = async (k: HybridKeys, input: TxInput) =>
      signTx(k, { ...buildTx(input), nonce: await client.nextNonce(k.address) }, t.network);
    const challenge = await presign(requester, {
      type: 'AI_CHALLENGE',
      bond: 50n * COIN,
      taskId: id,
      reason: 'not a summary',
    });
    const verdicts = await Promise.all(
      [b, c].map((juror) => presign(juror, { type: 'AI_VERDICT', taskId: id, verdict: 'overturn' })),
    );
    const answered = await until(id, 'CHALLENGE');
    expect(answered.result).toBe('SUMMARISE THE WHITE PAPER');
    expect((await client.submit(challenge)).accepted).toBe(true);
    expect((await client.waitFor(challenge.id, { until: 'included' })).record?.result).toMatchObject({
      status: 'success',
    });
    for (const v of verdicts) expect((await client.submit(v)).accepted).toBe(true);
    for (const v of verdicts)
      expect((await client.waitFor(v.id, { until: 'included' })).record?.result).toMatchObject({ status: 'success' });
    const over = await until(id, 'OVERTURNED');
    expect(over.verdicts).toHaveLength(2);
    const oa = (await client.oracles()).oracles.find((x) => x.address === a.address)!;
    expect(oa).toMatchObject({ slashes: 1, failed: 1 });
    expect(BigInt(oa.slashed)).toBe((500n * COIN * 1_000n) / 10_000n);
  }, 90_000);

  it(
    'the feed: since with a cursor covers every transition once, ' +
      'final=true stops at finality, a height not processed is an error',
    async () => {
      const all = await client.tasks({ since: 0, limit: 100 });
      const seen: string[] = [];
      let cursor = 0;
      for (let i = 0; i < 50; i++) {
        const page = await client.tasks({ since: cursor, limit: 3 });
        seen.push(...page.transitions!.map((x) => `${x.id}:${x.height}:${x.to}:${x.event}`));
        if (page.cursor === cursor || page.cursor >= all.cursor) {
          cursor = page.cursor;
          break;
        }
        cursor = page.cursor;
      }
      const once = all
        .transitions!.filter((x) => x.height <= cursor)
        .map((x) => `${x.id}:${x.height}:${x.to}:${x.event}`);
      expect(seen.slice(0, once.length)).toEqual(once);
      const fin = await client.tasks({ since: 0, final: true });
      expect(fin.cursor).toBeLessThanOrEqual(fin.finalizedHeight);
      expect(fin.transitions!.every((x) => x.height <= fin.finalizedHeight)).toBe(true);
      const far = await t.get('/ai/tasks?since=99999999');
      expect(far.status).toBe(400);
      expect(far.body.error).toMatch(/has not processed that height yet/);
      expect((await t.get('/ai/tasks?status=NOPE')).status).toBe(400);
      expect((await t.get(`/ai/tasks/0x${'00'.repeat(32)}`)).status).toBe(404);
      const quorum = await client.tasks({ mode: 'quorum', status: 'DONE' });
      expect(quorum.tasks.length).toBeGreaterThanOrEqual(1);
    },
  );
});
