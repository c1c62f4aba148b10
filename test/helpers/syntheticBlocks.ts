import fc from 'fast-check';
import { ZERO_HASH } from '../../src/chain/block';
import type { ChainEvent } from '../../src/protocol/events';
import type { Head } from '../../src/protocol/chain';
import type { Address, Block, SignedTx, TxResult } from '../../src/protocol/types';
import type { Hex } from '../../src/primitives/hex';
import type { ChainStore } from '../../src/storage/chainStore';

/**
 * Blocks for storage tests: shaped like real ones, with transactions, results, events of
 * every kind the indexes read (token, NFT, name, machine), VM logs and internal transfers,
 * drawn from small alphabets so that blocks overwrite and delete each other's index keys.
 * Storage never executes: it indexes what a block says, so these need no signatures.
 */
const ADDRS = [1, 2, 3, 4].map((i) => `0x${i.toString(16).padStart(40, '0')}` as Address);
const TOKENS = [0xa1, 0xa2].map((i) => `0x${i.toString(16).padStart(40, '0')}` as Hex);
const COLLECTION = `0x${'c0'.padStart(40, '0')}` as Hex;
const NAMES = ['alpha', 'beta', 'gamma'];

export type EventSpec =
  | { k: 'tokenCreate'; t: number }
  | { k: 'tokenMove'; t: number; from: number; to: number; amount: number; previous: number; balance: number }
  | { k: 'nftMint'; item: number; to: number }
  | { k: 'nftBurn'; item: number; from: number }
  | { k: 'nameRegister'; n: number; owner: number }
  | { k: 'nameUpdate'; n: number; owner: number; registeredAt: number }
  | { k: 'nameRelease'; n: number; registeredAt: number }
  | { k: 'machine'; id: number; to: string };

export interface TxSpec {
  from: number;
  to: number;
  amount: number;
  ok: boolean;
  events: EventSpec[];
  logs: number;
  internal: boolean;
}
export interface BlockSpec {
  salt: number;
  txs: TxSpec[];
  tick: { id: number; to: string }[];
}

const idx = fc.nat({ max: 3 });
const eventSpec: fc.Arbitrary<EventSpec> = fc.oneof(
  fc.record({ k: fc.constant('tokenCreate' as const), t: fc.nat({ max: 1 }) }),
  fc.record({
    k: fc.constant('tokenMove' as const),
    t: fc.nat({ max: 1 }),
    from: idx,
    to: idx,
    amount: fc.nat({ max: 9 }),
    previous: fc.nat({ max: 5 }),
    balance: fc.nat({ max: 5 }),
  }),
  fc.record({ k: fc.constant('nftMint' as const), item: fc.nat({ max: 4 }), to: idx }),
  fc.record({ k: fc.constant('nftBurn' as const), item: fc.nat({ max: 4 }), from: idx }),
  fc.record({ k: fc.constant('nameRegister' as const), n: fc.nat({ max: 2 }), owner: idx }),
  fc.record({
    k: fc.constant('nameUpdate' as const),
    n: fc.nat({ max: 2 }),
    owner: idx,
    registeredAt: fc.nat({ max: 3 }),
  }),
  fc.record({ k: fc.constant('nameRelease' as const), n: fc.nat({ max: 2 }), registeredAt: fc.nat({ max: 3 }) }),
  fc.record({
    k: fc.constant('machine' as const),
    id: fc.nat({ max: 2 }),
    to: fc.constantFrom('open', 'passed', 'rejected'),
  }),
);
const txSpec: fc.Arbitrary<TxSpec> = fc.record({
  from: idx,
  to: idx,
  amount: fc.nat({ max: 1000 }),
  ok: fc.boolean(),
  events: fc.array(eventSpec, { maxLength: 4 }),
  logs: fc.nat({ max: 2 }),
  internal: fc.boolean(),
});
export const blockSpec: fc.Arbitrary<BlockSpec> = fc.record({
  salt: fc.nat(),
  txs: fc.array(txSpec, { maxLength: 4 }),
  tick: fc.array(fc.record({ id: fc.nat({ max: 2 }), to: fc.constantFrom('passed', 'expired') }), { maxLength: 2 }),
});

const hex32 = (s: string): Hex => {
  let h = 0x811c9dc5;
  let out = '';
  for (let r = 0; out.length < 64; r++) {
    for (const c of `${s}/${r}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return `0x${out}`;
};

function event(e: EventSpec, height: number): ChainEvent {
  switch (e.k) {
    case 'tokenCreate':
      return { kind: 'token.create', token: TOKENS[e.t], symbol: `TK${e.t}`, name: `Token ${e.t}`, height };
    case 'tokenMove':
      return {
        kind: 'token.balance',
        token: TOKENS[e.t],
        holder: ADDRS[e.to],
        previous: String(e.previous),
        balance: String(e.balance),
      };
    case 'nftMint':
      return { kind: 'nft.transfer', collection: COLLECTION, item: e.item, from: null, to: ADDRS[e.to] };
    case 'nftBurn':
      return { kind: 'nft.transfer', collection: COLLECTION, item: e.item, from: ADDRS[e.from], to: null };
    case 'nameRegister':
      return { kind: 'name.register', name: NAMES[e.n], owner: ADDRS[e.owner], target: ADDRS[e.owner], height };
    case 'nameUpdate':
      return {
        kind: 'name.update',
        name: NAMES[e.n],
        owner: ADDRS[e.owner],
        target: ADDRS[0],
        registeredAt: e.registeredAt,
        previous: { owner: ADDRS[1], target: ADDRS[1] },
      };
    case 'nameRelease':
      return {
        kind: 'name.release',
        name: NAMES[e.n],
        registeredAt: e.registeredAt,
        owner: ADDRS[2],
        target: ADDRS[2],
      };
    case 'machine':
      return {
        kind: 'machine.transition',
        machine: 'test',
        id: String(e.id),
        from: 'open',
        to: e.to,
        event: 'VOTE',
        height,
      };
  }
}

/** The block a spec describes at `height` on `parent` (deterministic: same spec, same block). */
export function materialize(spec: BlockSpec, height: number, parent: Hex): Block {
  const hash = hex32(`block/${height}/${spec.salt}/${parent}`);
  const txs: SignedTx[] = spec.txs.map(
    (t, i) =>
      ({
        chainId: 72020,
        type: 'TRANSFER',
        from: ADDRS[t.from],
        to: ADDRS[t.to],
        amount: String(t.amount),
        nonce: height * 10 + i,
        timestamp: height * 1000 + i,
        fee: '1',
        data: null,
        id: hex32(`tx/${hash}/${i}`),
        publicKeys: { secp256k1: '0x', mldsa44: '0x' },
        signatures: { secp256k1: '0x', mldsa44: '0x' },
      }) as SignedTx,
  );
  const results: TxResult[] = spec.txs.map((t, i) => ({
    status: t.ok ? 'success' : 'failed',
    energyUsed: '1',
    burned: '0',
    ...(t.ok ? { events: t.events.map((e) => event(e, height)) } : { error: 'insufficient balance' }),
    ...(t.logs || t.internal
      ? {
          vm: {
            gasUsed: '21000',
            logs: Array.from({ length: t.logs }, (_, n) => ({
              address: ADDRS[t.to],
              topics: [hex32(`topic/${n}`)],
              data: '0x' as Hex,
            })),
            internal: t.internal
              ? [{ kind: 'call', from: ADDRS[t.from], to: ADDRS[(t.to + 1) % 4], amountWei: String(i + 1) }]
              : [],
          },
        }
      : {}),
  }));
  const events = spec.tick.map((e) => event({ k: 'machine', id: e.id, to: e.to }, height));
  return {
    header: {
      height,
      parentHash: parent,
      timestamp: 1_000_000 + height * 1000,
      producer: ADDRS[height % 4],
      txRoot: hex32(`txroot/${hash}`),
      stateRoot: hex32(`state/${hash}`),
      txCount: txs.length,
      hash,
      signatures: { secp256k1: '0x', mldsa44: '0x' },
    },
    txs,
    results,
    ...(events.length ? { events } : {}),
  };
}

/** Commits `block` on the store's head as the consensus actor does (undoably, nothing final). */
export async function commitSynthetic(store: ChainStore, block: Block, finalizedHeight = 0): Promise<Head> {
  const h = block.header;
  const head: Head = {
    height: h.height,
    hash: h.hash,
    stateRoot: h.stateRoot,
    finalizedHeight,
    timestamp: h.timestamp,
  };
  const touched = [h.producer, ...block.txs.flatMap((t) => (t.to ? [t.from, t.to] : [t.from]))];
  const batch = store.kv.batch();
  await store.putUndoableBlock(batch, block, head, await store.unseen(touched), await store.counters());
  await store.kv.write(batch);
  return head;
}

/** Commits blocks made from `specs` on top of the store's head (`finalizedHeight` for each); returns their hashes. */
export async function applySpecs(store: ChainStore, specs: BlockSpec[], finalizedHeight = 0): Promise<Hex[]> {
  const hashes: Hex[] = [];
  for (const s of specs) {
    const head = await store.head();
    const block = materialize(s, (head?.height ?? 0) + 1, head?.hash ?? ZERO_HASH);
    await commitSynthetic(store, block, finalizedHeight);
    hashes.push(block.header.hash);
  }
  return hashes;
}
