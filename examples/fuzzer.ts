/**
 * A lifecycle fuzzer against a --dev node, through the SDK: fast-check generates random
 * sequences of transfers (some valid, some not) and block productions; after each step it
 * checks invariants over HTTP — coins are conserved among the accounts it moves (what they
 * lose is what they gain plus the fees burned), nonces only grow, every transaction it sent
 * is included or refused with a reason, the chain only grows — and that the lifecycle state
 * the node reports for each is a state of the machine GET /machines describes. Before each run it reverts the node to
 * one snapshot, reused for every run (a
 * --dev snapshot survives its revert), so runs are independent and shrinking replays them.
 *
 *   export ADMIN_TOKEN=$(openssl rand -hex 32)
 *   cairn node --dev --dev-accounts 4 &
 *   npx tsx examples/fuzzer.ts --node http://127.0.0.1:6070 --data-dir ./data [--runs 20]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { CairnClient, deriveKeys, type HybridKeys, type TxInput } from '../src/sdk';
import { fromHex } from '../src/primitives/hex';
import { arg } from './support';

interface Machine {
  name: string;
  states: string[];
  final: string[];
  transitions: { from: string; event: string; to: string }[];
}

type Step = { kind: 'transfer'; from: number; to: number; amount: bigint } | { kind: 'mine'; blocks: number };

export interface FuzzOptions {
  node: string;
  adminToken: string;
  keys: HybridKeys[];
  runs?: number;
  seed?: number;
  log?: (m: string) => void;
}

export async function fuzz(o: FuzzOptions): Promise<{ runs: number; steps: number; txs: number }> {
  const client = new CairnClient(o.node);
  const dev = async <T>(path: string, body: unknown = {}): Promise<T> => {
    const r = await fetch(`${o.node}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': o.adminToken },
      body: JSON.stringify(body),
    });
    const json = (await r.json()) as T & { error?: string };
    if (!r.ok) throw new Error(`${path}: ${r.status} ${json.error}`);
    return json;
  };
  // The head may run at most a few slots ahead of the clock: a 409 means wait for the clock, then mine.
  const mine = async (blocks: number): Promise<void> => {
    for (const until = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 100))) {
      const r = await fetch(`${o.node}/dev/mine`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-admin-token': o.adminToken },
        body: JSON.stringify({ blocks }),
      });
      if (r.status !== 409 || Date.now() > until) {
        if (!r.ok) throw new Error(`/dev/mine: ${r.status} ${((await r.json()) as { error?: string }).error}`);
        return;
      }
    }
  };
  const machines = ((await (await fetch(`${o.node}/machines`)).json()) as { machines: Machine[] }).machines;
  const txMachine = machines.find((m) => m.name === 'txLifecycle')!;
  const snapshot = await dev<{ id: number; height: number }>('/dev/snapshot');
  const totals = { runs: 0, steps: 0, txs: 0 };
  const n = o.keys.length;
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('transfer' as const),
        from: fc.nat(n - 1),
        to: fc.nat(n - 1),
        amount: fc.oneof(fc.bigInt(1n, 1_000_000n), fc.constant(10n ** 30n)),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('mine' as const), blocks: fc.integer({ min: 1, max: 3 }) }) },
  );

  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      await dev('/dev/revert', { id: snapshot.id });
      totals.runs++;
      const balances = async () =>
        Promise.all(o.keys.map(async (k) => BigInt((await client.account(k.address))?.balance ?? 0)));
      const nonces = async () => Promise.all(o.keys.map(async (k) => (await client.account(k.address))?.nonce ?? 0));
      const start = await balances();
      let lastNonces = await nonces();
      let lastHeight = (await client.status()).height;
      const sent: string[] = [];
      for (const s of steps) {
        totals.steps++;
        if (s.kind === 'mine') await mine(s.blocks);
        else if (s.from !== s.to) {
          const r = await client.sendTx(o.keys[s.from], {
            type: 'TRANSFER',
            to: o.keys[s.to].address,
            amount: s.amount,
          } as TxInput);
          // Accepted, or refused with a reason: never an answer without one.
          if (!r.verdict.accepted && !r.verdict.reason) throw new Error('a refusal without a reason');
          if (r.verdict.accepted) sent.push(r.tx.id);
          totals.txs++;
        }
        const now = await nonces();
        now.forEach((x, i) => {
          if (x < lastNonces[i]) throw new Error(`nonce of ${o.keys[i].address} went back: ${lastNonces[i]} → ${x}`);
        });
        lastNonces = now;
        const h = (await client.status()).height;
        if (h < lastHeight) throw new Error(`the chain went back: ${lastHeight} → ${h}`);
        lastHeight = h;
      }
      await mine(1); // whatever is still pending goes in
      let burned = 0n;
      for (const id of sent) {
        const rec = await client.tx(id);
        if (!rec) throw new Error(`accepted transaction ${id} is unknown to the node`);
        // Its lifecycle state, as the node reports it, is a state of the machine GET /machines describes.
        if (!txMachine.states.includes(rec.lifecycle))
          throw new Error(
            `transaction ${id} is in ${rec.lifecycle}, not a state of ${txMachine.name} ` +
              `(${txMachine.states.join(', ')})`,
          );
        if (rec.status === 'included' || rec.status === 'finalized') burned += BigInt(rec.result?.burned ?? '0');
      }
      const end = await balances();
      const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);
      if (sum(start) - sum(end) !== burned)
        throw new Error(`coins not conserved: the accounts hold ${sum(start) - sum(end)} less, ${burned} was burned`);
    }),
    { numRuns: o.runs ?? 20, seed: o.seed, endOnFailure: true },
  );
  await dev('/dev/revert', { id: snapshot.id });
  o.log?.(`fuzzed ${totals.runs} runs, ${totals.steps} steps, ${totals.txs} transactions: invariants held`);
  return totals;
}

if (process.argv[1]?.endsWith('fuzzer.ts')) {
  const token = arg('admin-token') ?? process.env.ADMIN_TOKEN;
  const dataDir = arg('data-dir') ?? './data';
  if (!token || process.argv.includes('--help')) {
    console.error(
      'usage: ADMIN_TOKEN=<token> npx tsx examples/fuzzer.ts [--node <url>] ' +
        '[--data-dir <dir with dev-accounts.json>] [--runs <n>] [--seed <n>]',
    );
    process.exit(token ? 0 : 2);
  }
  const keys = (JSON.parse(readFileSync(join(dataDir, 'dev-accounts.json'), 'utf8')) as { secret: string }[])
    .slice(0, 4)
    .map((a) => deriveKeys(fromHex(a.secret)));
  fuzz({
    node: arg('node') ?? process.env.CAIRN_NODE ?? 'http://127.0.0.1:6070',
    adminToken: token,
    keys,
    runs: Number(arg('runs') ?? 20),
    seed: arg('seed') ? Number(arg('seed')) : undefined,
    log: console.log,
  }).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
