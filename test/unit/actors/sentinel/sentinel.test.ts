import { Writable } from 'node:stream';
import pino from 'pino';
import { waitUntil } from '../../../helpers/wait';
import { describe, expect, it } from 'vitest';
import { ChainView } from '../../../../src/api/chainView';
import type { MempoolStats, SentinelMsg } from '../../../../src/actors/protocol';
import { AlertLog, Sentinel, sentinelBehavior, type SentinelOptions } from '../../../../src/actors/sentinel';
import { Supervisor } from '../../../../src/actors/supervisor';
import { genesisHeader, headerHash, signHeader, ZERO_HASH } from '../../../../src/chain/block';
import type {
  Address,
  Block,
  BlockHeader,
  SignedBlockHeader,
  SignedTx,
  TxResult,
} from '../../../../src/protocol/types';
import { keccakHex } from '../../../../src/crypto/hash';
import { deriveKeys } from '../../../../src/crypto/keys';
import { COIN } from '../../../../src/primitives/amount';
import { toHex, utf8, type Hex } from '../../../../src/primitives/hex';
import { MemoryKv } from '../../../../src/state/kv';
import { ChainStore, type Head } from '../../../../src/storage/chainStore';

const silent = pino({ level: 'silent' });
const addr = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
const A = addr(0xa),
  B = addr(0xb),
  C = addr(0xc);

/** A header with placeholder signatures: the sentinel trusts blocks its own node committed. */
function header(height: number, parentHash: Hex, producer: Address, salt = ''): SignedBlockHeader {
  const h: BlockHeader = {
    height,
    parentHash,
    timestamp: 1_000 + height,
    producer,
    txRoot: ZERO_HASH,
    stateRoot: keccakHex(utf8(`${height}/${salt}`)),
    txCount: 0,
  };
  return { ...h, hash: headerHash(h), signatures: { secp256k1: '0x', mldsa44: '0x' } };
}

function transfer(n: number, amount: bigint): SignedTx {
  return {
    chainId: 72020,
    type: 'TRANSFER',
    from: A,
    to: B,
    amount: amount.toString(),
    nonce: n,
    timestamp: 1,
    fee: '0',
    data: null,
    id: keccakHex(utf8(`tx${n}/${amount}`)),
    publicKeys: { secp256k1: '0x', mldsa44: '0x' },
    signatures: { secp256k1: '0x', mldsa44: '0x' },
  };
}

/** A chain in a MemoryKv store, a read model over it, and the sentinel's behaviour on a fake clock. */
/** The signing key of the double-sign test, bound for its address (the sentinel reads bound keys from state). */
const SIGNER = deriveKeys(new Uint8Array(32).fill(7));
const boundKeys = async (producer: Address) =>
  producer === SIGNER.address
    ? { secp256k1: toHex(SIGNER.secp256k1.publicKey), mldsa44: toHex(SIGNER.mldsa44.publicKey) }
    : undefined;

async function harness(
  validators: Address[],
  options: Partial<SentinelOptions> = {},
  mempoolStats?: () => MempoolStats,
) {
  const store = new ChainStore(new MemoryKv());
  const g = genesisHeader({
    height: 0,
    parentHash: ZERO_HASH,
    timestamp: 1_000,
    producer: addr(0),
    txRoot: ZERO_HASH,
    stateRoot: ZERO_HASH,
    txCount: 0,
  });
  const genesisHead: Head = {
    height: 0,
    hash: g.hash,
    stateRoot: g.stateRoot,
    finalizedHeight: 0,
    timestamp: g.timestamp,
  };
  const b0 = store.kv.batch();
  store.putBlock(b0, { header: g, txs: [], results: [] }, genesisHead);
  await store.kv.write(b0);
  const view = new ChainView(genesisHead, validators, [(await store.summary(0))!]);
  const clock = { t: 1_000_000 };
  const alerts = new AlertLog(silent, 1_000, () => clock.t);
  const behavior = sentinelBehavior({
    alerts,
    view,
    store,
    now: () => clock.t,
    log: silent,
    options,
    signingKeys: boundKeys,
    mempool: mempoolStats ? { ask: async () => mempoolStats() as never } : undefined,
  });
  const send = (m: SentinelMsg) => behavior.handle(m);
  let tip = g;
  /** Commits a block on top of `parent` (default: the tip) and tells the sentinel about the new head. */
  async function commit(
    producer: Address,
    opts: {
      txs?: SignedTx[];
      results?: TxResult[];
      parent?: SignedBlockHeader;
      salt?: string;
      finalized?: number;
      header?: SignedBlockHeader;
    } = {},
  ) {
    const parent = opts.parent ?? tip;
    const h = opts.header ?? header(parent.height + 1, parent.hash, producer, opts.salt);
    const txs = opts.txs ?? [];
    const block: Block = {
      header: h,
      txs,
      results: opts.results ?? txs.map(() => ({ status: 'success', energyUsed: '0', burned: '0' })),
    };
    const head: Head = {
      height: h.height,
      hash: h.hash,
      stateRoot: h.stateRoot,
      finalizedHeight: opts.finalized ?? Math.max(0, h.height - 1),
      timestamp: h.timestamp,
    };
    const batch = store.kv.batch();
    const summary = store.putBlock(batch, block, head);
    await store.kv.write(batch);
    view.publish(head, summary); // after the write, as the consensus actor does
    tip = h;
    await send({ type: 'head', head });
    return h;
  }
  return { store, view, clock, alerts, send, commit, genesis: g, kinds: () => alerts.recent(1_000).map((a) => a.kind) };
}

describe('alert ring', () => {
  it('keeps the newest alerts, newest first, and logs each one at warn or error', () => {
    const lines: { level: number; msg: string }[] = [];
    const sink = new Writable({
      write(chunk, _e, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const log = pino({ level: 'info' }, sink);
    const ring = new AlertLog(log, 5, () => 42);
    for (let i = 0; i < 7; i++) ring.raise('large_transfer', i === 6 ? 'critical' : 'warning', `alert ${i}`, i, { i });
    expect(ring.size).toBe(5);
    expect(ring.recent(100).map((a) => a.id)).toEqual([7, 6, 5, 4, 3]);
    expect(ring.recent(2).map((a) => a.message)).toEqual(['alert 6', 'alert 5']);
    expect(ring.recent(0)).toEqual([]);
    expect(ring.recent(1)[0]).toMatchObject({
      kind: 'large_transfer',
      severity: 'critical',
      at: 42,
      height: 6,
      details: { i: 6 },
    });
    expect(lines.map((l) => l.level)).toEqual([40, 40, 40, 40, 40, 40, 50]);
    expect(lines[6].msg).toMatch(/security alert: alert 6/);
  });
});

describe('sentinel', () => {
  it('raises nothing on a healthy single-validator chain', async () => {
    const h = await harness([A], { expectedBlockMs: 1_000 });
    for (let i = 0; i < 80; i++) {
      await h.commit(A, { txs: [transfer(i, 5n * COIN)] });
      h.clock.t += 1_000;
      await h.send({ type: 'tick' });
    }
    expect(h.kinds()).toEqual([]);
  });

  it('detects a reorganization: the head replaced at the same height, and at a lower height', async () => {
    const h = await harness([A]);
    const b1 = await h.commit(A);
    const b2 = await h.commit(A);
    await h.commit(A);
    expect(h.kinds()).toEqual([]);
    // Another block 3 on top of block 2 (from another producer: the same one would be double signing).
    await h.commit(B, { parent: b2, salt: 'fork' });
    let [a] = h.alerts.recent(10);
    expect(a).toMatchObject({
      kind: 'reorg',
      severity: 'warning',
      details: { oldHeight: 3, newHeight: 3, depth: 1, commonAncestor: 2 },
    });
    // Then a branch from block 1 that is shorter than the chain it replaces: 2' becomes the head.
    await h.commit(B, { parent: b1, salt: 'fork2' });
    [a] = h.alerts.recent(10);
    expect(a).toMatchObject({ kind: 'reorg', details: { oldHeight: 3, newHeight: 2, depth: 2, commonAncestor: 1 } });
    expect(a.severity).toBe('critical'); // block 2 was final (finalizedHeight 2 at head 3): undone below finality
    // Extending the new branch is not a reorganization (C: A and B each already signed a block 3).
    await h.commit(C);
    await h.commit(C);
    expect(h.kinds()).toEqual(['reorg', 'reorg']);
  });

  it(
    'detects double signing from two real signed headers, ' + 'ignores forgeries, and checks committed blocks',
    async () => {
      const h = await harness([A]);
      const keys = SIGNER;
      const base: BlockHeader = {
        height: 1,
        parentHash: h.genesis.hash,
        timestamp: 2_000,
        producer: keys.address,
        txRoot: ZERO_HASH,
        stateRoot: ZERO_HASH,
        txCount: 0,
      };
      const one = signHeader(keys, base);
      const two = signHeader(keys, { ...base, stateRoot: keccakHex(utf8('other state')) });
      expect(one.hash).not.toBe(two.hash);

      await h.send({ type: 'header', header: one });
      await h.send({ type: 'header', header: one }); // the same header again is nothing
      // A conflicting header whose signatures are not the producer's proves nothing.
      const forged: SignedBlockHeader = { ...two, signatures: { ...two.signatures, mldsa44: one.signatures.mldsa44 } };
      await h.send({ type: 'header', header: forged });
      expect(h.kinds()).toEqual([]);

      await h.send({ type: 'header', header: two });
      const [a] = h.alerts.recent(10);
      expect(a).toMatchObject({
        kind: 'double_sign',
        severity: 'critical',
        details: { producer: keys.address, height: 1, hashes: [one.hash, two.hash] },
      });
      expect((a.details.evidence as SignedBlockHeader[]).map((x) => x.hash)).toEqual([one.hash, two.hash]);
      await h.send({ type: 'header', header: two }); // reported once
      expect(h.kinds()).toEqual(['double_sign']);

      // The node's own committed block conflicting with a header seen on the gossip path.
      const three = signHeader(keys, { ...base, timestamp: 2_001 });
      await h.commit(keys.address, { header: three });
      expect(h.kinds()).toEqual(['double_sign', 'double_sign']);
      expect(h.alerts.recent(1)[0].details.hashes).toEqual([one.hash, three.hash]);
      // The committed header is read back from the store as evidence, signatures included.
      expect(h.alerts.recent(1)[0].details.evidence).toEqual([one, three]);
    },
  );

  it('detects a finality stall while the head advances, and a head that does not advance', async () => {
    const h = await harness([A], { expectedBlockMs: 1_000, stallFactor: 5 });
    await h.commit(A, { finalized: 0 });
    // The head keeps moving but finalizedHeight stays at 0: the limit is 5 × 1 s × (n + threshold(1) + 1) = 15 s.
    for (let i = 0; i < 14; i++) {
      h.clock.t += 1_000;
      await h.commit(A, { finalized: 0 });
      await h.send({ type: 'tick' });
    }
    expect(h.kinds()).toEqual([]);
    for (let i = 0; i < 3; i++) {
      h.clock.t += 1_000;
      await h.commit(A, { finalized: 0 });
      await h.send({ type: 'tick' });
    }
    expect(h.alerts.recent(10).map((a) => [a.kind, a.details.reason])).toEqual([['finality_stall', 'finality']]);
    // Finality moves again: re-armed, nothing new.
    await h.commit(A);
    await h.send({ type: 'tick' });
    expect(h.alerts.size).toBe(1);
    // Now the head stops: after 5 s without a block, one alert, however long it lasts.
    h.clock.t += 4_000;
    await h.send({ type: 'tick' });
    expect(h.alerts.size).toBe(1);
    h.clock.t += 1_500;
    await h.send({ type: 'tick' });
    h.clock.t += 60_000;
    await h.send({ type: 'tick' });
    expect(h.alerts.recent(10).map((a) => [a.kind, a.details.reason])).toEqual([
      ['finality_stall', 'head'],
      ['finality_stall', 'finality'],
    ]);
    // A new block re-arms the head check.
    await h.commit(A);
    h.clock.t += 6_000;
    await h.send({ type: 'tick' });
    expect(h.alerts.size).toBe(3);
  });

  it('a finality stall names the members that have not produced since the final block', async () => {
    const h = await harness([A, B], { expectedBlockMs: 1_000, stallFactor: 5 });
    // Only A produces; finality needs both (limit 5 × 1 s × (n + threshold(2) + 1) = 25 s).
    for (let i = 0; i < 30; i++) {
      h.clock.t += 1_000;
      await h.commit(A, { finalized: 0 });
      await h.send({ type: 'tick' });
    }
    const [alert] = h.alerts.recent(10);
    expect(alert.details).toMatchObject({ reason: 'finality', notProducing: [B] });
    expect(alert.message).toContain(`members not producing since block 0: ${B}`);
  });

  it('detects producer concentration and validator degradation with several validators, once per episode', async () => {
    const h = await harness([A, B, C], { window: 12, concentrationShare: 0.5, degradationFraction: 0.5 });
    // Healthy rotation: nothing.
    for (let i = 0; i < 24; i++) await h.commit([A, B, C][i % 3]);
    expect(h.kinds()).toEqual([]);
    // A takes over: once A holds more than half of the last 12 blocks, and B and C fall below half their share.
    for (let i = 0; i < 12; i++) await h.commit(A);
    const alerts = h.alerts.recent(100);
    expect(alerts.filter((a) => a.kind === 'producer_concentration').map((a) => a.details.producer)).toEqual([A]);
    expect(
      alerts
        .filter((a) => a.kind === 'validator_degradation')
        .map((a) => a.details.validator)
        .sort(),
    ).toEqual([B, C]);
    expect(alerts.length).toBe(3);
    // Rotation resumes: the episode ends; a new takeover raises again.
    for (let i = 0; i < 12; i++) await h.commit([A, B, C][i % 3]);
    expect(h.alerts.size).toBe(3);
    for (let i = 0; i < 12; i++) await h.commit(A);
    expect(h.alerts.size).toBe(6);
  });

  it('raises neither concentration nor degradation with a single validator', async () => {
    const h = await harness([A], { window: 8 });
    for (let i = 0; i < 20; i++) await h.commit(A);
    expect(h.kinds()).toEqual([]);
  });

  it('detects a mempool flood by size and by an admission-rate spike', async () => {
    const stats: MempoolStats = { size: 0, cap: 100, admitted: 0 };
    const h = await harness(
      [A],
      { floodFraction: 0.8, rateSpikeFactor: 10, rateSpikeMin: 50, expectedBlockMs: 3_600_000 },
      () => ({ ...stats }),
    );
    const tick = async (admitted: number, size = stats.size) => {
      h.clock.t += 1_000;
      stats.admitted += admitted;
      stats.size = size;
      await h.send({ type: 'tick' });
    };
    for (let i = 0; i < 10; i++) await tick(5, 10); // a steady 5/s
    expect(h.kinds()).toEqual([]);
    await tick(500, 60); // 100× the baseline
    expect(h.alerts.recent(1)[0]).toMatchObject({
      kind: 'mempool_flood',
      details: { reason: 'rate', ratePerSec: 500 },
    });
    await tick(500, 70); // still spiking: same episode
    expect(h.alerts.size).toBe(1);
    await tick(0, 85); // 85 % of the cap
    expect(h.alerts.recent(1)[0]).toMatchObject({
      kind: 'mempool_flood',
      details: { reason: 'size', size: 85, cap: 100 },
    });
    await tick(0, 99);
    expect(h.alerts.size).toBe(2);
    await tick(0, 10);
    await tick(0, 90); // drained then refilled: a new episode
    expect(h.alerts.size).toBe(3);
    // A restarted mempool actor counts from zero again: no bogus negative or huge rate.
    stats.admitted = 0;
    await tick(0, 10);
    expect(h.alerts.size).toBe(3);
  });

  it('flags large transfers at the configured amount, only when they executed', async () => {
    const h = await harness([A]);
    const big = transfer(1, 1_000_000n * COIN);
    const small = transfer(2, 999_999n * COIN);
    const failed = transfer(3, 5_000_000n * COIN);
    await h.commit(A, {
      txs: [big, small, failed],
      results: [
        { status: 'success', energyUsed: '0', burned: '0' },
        { status: 'success', energyUsed: '0', burned: '0' },
        { status: 'failed', error: 'insufficient balance', energyUsed: '0', burned: '0' },
      ],
    });
    const alerts = h.alerts.recent(10);
    expect(alerts.map((a) => a.kind)).toEqual(['large_transfer']);
    expect(alerts[0].details).toMatchObject({
      txId: big.id,
      amount: (1_000_000n * COIN).toString(),
      blockHeight: 1,
      from: A,
      to: B,
    });

    const h2 = await harness([A], { largeTransfer: 10n });
    const vm = transfer(4, 0n);
    await h2.commit(A, {
      txs: [vm],
      results: [
        {
          status: 'success',
          energyUsed: '0',
          burned: '0',
          vm: {
            gasUsed: '0',
            logs: [],
            internal: [{ kind: 'CALL', from: A, to: C, amountWei: (11n * 10n ** 12n).toString() }],
          },
        },
      ],
    });
    expect(h2.alerts.recent(10).map((a) => [a.kind, a.details.amount, a.details.to])).toEqual([
      ['large_transfer', '11', C],
    ]);
  });

  it('runs as a supervised actor fed by ChainView.onHead, and its alerts survive a restart', {
    timeout: 10_000,
  }, async () => {
    const h = await harness([A]);
    const sentinel = new Sentinel({
      view: h.view as ChainView,
      store: h.store,
      now: () => h.clock.t,
      log: silent,
      options: { largeTransfer: 1n },
    });
    const sup = new Supervisor(
      silent,
      () => {
        throw new Error('should not escalate');
      },
      { maxRestarts: 3, windowMs: 10_000, backoffMs: 1, maxBackoffMs: 5 },
    );
    await sup.startChild(sentinel.childSpec());
    const disconnect = sentinel.connect(60_000);
    const seen = (n: number) =>
      waitUntil(() => (sentinel.recent(100).length >= n ? sentinel.recent(100) : undefined), 5_000, 5, `${n} alerts`);
    // `harness.commit` publishes on the same view the actor listens to.
    await h.commit(A, { txs: [transfer(1, 7n)] });
    expect((await seen(1))[0]).toMatchObject({ kind: 'large_transfer', height: 1 });
    await expect(sentinel.ref.injectFault()).rejects.toThrow(/injected fault/);
    await h.commit(A, { txs: [transfer(2, 8n)] });
    const after = await seen(2);
    expect(after.map((a) => a.details.amount)).toEqual(['8', '7']);
    expect(sup.status()[0]).toMatchObject({ name: 'sentinel', running: true, restarts: 1 });
    sentinel.raise('storage_failure', 'critical', 'disk full', { dir: '/x' });
    expect(sentinel.recent(1)[0]).toMatchObject({ kind: 'storage_failure', height: 2 });
    disconnect();
    await sup.stop();
  });
});
