import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { signHeader, txRootOf, ZERO_HASH } from '../../../src/chain/block';
import { devNetworkGenesis } from '../../../src/chain/devnet';
import { headerHash } from '../../../src/crypto/blockHeader';
import { CairnError } from '../../../src/errors/CairnError';
import type { SnapshotTransport } from '../../../src/network/peerClient';
import { syncState } from '../../../src/node/stateSync';
import type { Hex } from '../../../src/primitives/hex';
import type { SignedBlockHeader } from '../../../src/protocol/types';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';
import { nodeKey } from '../../../src/state/trieNodes';
import { ChainStore } from '../../../src/storage/chainStore';
import { commitState, freshChainState } from '../../helpers/memChain';

const log = pino({ level: 'silent' });
const GENESIS: Hex = `0x${'ab'.repeat(32)}`;

/** A source chain's state (the dev genesis with 60 accounts) and a snapshot header at height 40 signed by its validator. */
async function source() {
  const net = devNetworkGenesis(60, 1);
  const { kv, state } = await freshChainState(net.spec);
  const root = await commitState(kv, state);
  const header = signHeader(net.validators[0], {
    height: 40,
    parentHash: ZERO_HASH,
    timestamp: 1_000,
    producer: net.validators[0].address,
    txRoot: txRootOf([]),
    stateRoot: root,
    txCount: 0,
  });
  return { kv, root, header, accounts: net.accounts.map((a) => a.address as Hex) };
}

type Behaviour = 'honest' | 'liar' | 'forgetful' | 'down';

/** Peers over the source's store; a liar answers garbage, a forgetful one nothing, a down one fails. */
function transport(kv: MemoryKv, header: SignedBlockHeader, peers: Record<string, Behaviour>) {
  const asked: Record<string, number> = {};
  const t: SnapshotTransport = {
    status: async () => ({
      height: 50,
      hash: header.hash,
      finalizedHeight: 48,
      justifiedHeight: 48,
      genesisHash: GENESIS,
    }),
    snapshots: async () => [header],
    stateNodes: async (peer, hashes) => {
      asked[peer] = (asked[peer] ?? 0) + hashes.length;
      const b = peers[peer];
      if (b === 'down') throw new Error('connection refused');
      if (b === 'forgetful') return hashes.map(() => undefined);
      if (b === 'liar') return hashes.map(() => Uint8Array.of(0xc0));
      return Promise.all(hashes.map((h) => kv.get(nodeKey(Buffer.from(h).toString('hex')))));
    },
  };
  return { t, asked };
}

const run = (kv: MemoryKv, t: SnapshotTransport, checkpoint: Hex, peers: string[]) =>
  syncState({
    kv,
    store: new ChainStore(kv),
    peers,
    checkpoint,
    genesisHash: GENESIS,
    log,
    transport: t,
    chunk: 16,
    parallel: 3,
  });

describe('state sync (node/stateSync.ts)', () => {
  it('fetches the whole state from peers, refusing a lying and a forgetful one, and ends on the header as head', async () => {
    const src = await source();
    const { t, asked } = transport(src.kv, src.header, { a: 'liar', b: 'honest', c: 'forgetful', d: 'down' });
    const kv = new MemoryKv();
    const head = await run(kv, t, src.header.hash, ['a', 'b', 'c', 'd']);
    expect(head).toMatchObject({ height: 40, hash: src.header.hash, stateRoot: src.root, finalizedHeight: 40 });
    // Every account reads the same from the synced store alone.
    const mine = await StateTrie.open(kv, src.root);
    const theirs = await StateTrie.open(src.kv, src.root);
    for (const a of src.accounts) expect(await mine.getAccount(a)).toEqual(await theirs.getAccount(a));
    const store = new ChainStore(kv);
    expect(await store.head()).toEqual(head);
    expect(await store.historyFrom()).toBe(41);
    expect(await store.stateFrom()).toBe(40);
    expect((await store.summary(40))?.stateRoot).toBe(src.root);
    expect(await store.heightOfHash(src.header.hash)).toBe(40);
    // The honest peer gave nearly all; the others were asked once or a few times and dropped.
    expect(asked.b).toBeGreaterThan(60);
    expect((asked.a ?? 0) + (asked.c ?? 0) + (asked.d ?? 0)).toBeLessThan(asked.b);
  });

  it('resumes after a crash: what the store already holds is not fetched again', async () => {
    const src = await source();
    const kv = new MemoryKv();
    // A peer that dies part-way: the sync fails with nothing believed (no head)...
    let served = 0;
    const honest = transport(src.kv, src.header, { b: 'honest' }).t;
    const dying: SnapshotTransport = {
      ...honest,
      stateNodes: async (peer, hashes) => {
        if (served++ >= 5) throw new Error('gone');
        return honest.stateNodes(peer, hashes);
      },
    };
    await expect(run(kv, dying, src.header.hash, ['b'])).rejects.toThrow(/no peer serves the whole snapshot/);
    expect(await new ChainStore(kv).head()).toBeUndefined();
    // ...and the next run asks only for what is missing.
    const { t, asked } = transport(src.kv, src.header, { b: 'honest' });
    const first = transport(src.kv, src.header, { b: 'honest' });
    await run(new MemoryKv(), first.t, src.header.hash, ['b']);
    await run(kv, t, src.header.hash, ['b']);
    expect(asked.b).toBeLessThan(first.asked.b);
    expect(await new ChainStore(kv).head()).toMatchObject({ height: 40, stateRoot: src.root });
  });

  it('refuses a checkpoint no peer serves, and a header whose signatures do not verify', async () => {
    const src = await source();
    const { t } = transport(src.kv, src.header, { b: 'honest' });
    const other: Hex = `0x${'12'.repeat(32)}`;
    await expect(run(new MemoryKv(), t, other, ['b'])).rejects.toThrow(
      new RegExp(`no peer serves a snapshot at checkpoint ${other}.*b: 40 ${src.header.hash}`),
    );
    // The hash covers the fields, not the signatures: a peer may swap them; the node checks them.
    const forged: SignedBlockHeader = {
      ...src.header,
      signatures: { ...src.header.signatures, secp256k1: `0x${'11'.repeat(65)}` },
    };
    expect(headerHash(forged)).toBe(src.header.hash);
    const kv = new MemoryKv();
    const bad = transport(src.kv, forged, { b: 'honest' }).t;
    const e = await run(kv, bad, src.header.hash, ['b']).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CairnError);
    expect((e as Error).message).toMatch(/the checkpoint block's header does not verify: invalid block signature/);
    expect(await new ChainStore(kv).head()).toBeUndefined();
  });
});
