/**
 * A machine's view actor (actors/machineViewActor.ts): it follows committed blocks, re-reads
 * what an undone block touched, answers what moves next, and rebuilds from the node-local
 * feed when it starts — over a real state trie, with the test auction machine.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { machineViewBehavior } from '../../../src/actors/machineViewActor';
import { actionsOf, type ActionsAt } from '../../../src/machines/actions';
import { createInstance, sendEvent } from '../../../src/machines/instance';
import type { Hex } from '../../../src/primitives/hex';
import type { Head } from '../../../src/protocol/chain';
import type { ChainEvent } from '../../../src/protocol/events';
import type { Address, Block } from '../../../src/protocol/types';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';
import type { ChainStore } from '../../../src/storage/chainStore';
import { auctionDef } from '../../helpers/testMachine';

const SELLER = ('0x' + '5e'.repeat(20)) as Address;
const BIDDER = ('0x' + 'b0'.repeat(20)) as Address;
const log = pino({ level: 'silent' });

/** Commits the state's changes and returns a block whose results carry `events` (what the view reads). */
async function blockOf(
  kv: MemoryKv,
  s: StateTrie,
  height: number,
  events: ChainEvent[],
): Promise<{ block: Block; head: Head }> {
  const batch = kv.batch();
  const root = await s.flush(batch);
  await kv.write(batch);
  s.settle();
  const head: Head = {
    height,
    hash: `0x${height.toString(16).padStart(64, '0')}` as Hex,
    stateRoot: root,
    finalizedHeight: 0,
    timestamp: height,
  };
  return {
    head,
    block: {
      header: { height, stateRoot: root, hash: head.hash },
      txs: [],
      results: [{ status: 'success', energyUsed: '0', burned: '0', events }],
    } as unknown as Block,
  };
}

describe('a machine view actor', () => {
  it('follows committed blocks, re-reads an undone one, lists what moves next, and reloads from the feed', async () => {
    const kv = new MemoryKv();
    const s = await StateTrie.open(kv, null);
    const genesis = await blockOf(kv, s, 0, []);
    let head = genesis.head;
    const feed: ChainEvent[] = [];
    const store = {
      machineFeed: async (_m: string, since: number) => feed.filter((e) => (e as { height: number }).height > since),
    } as unknown as ChainStore;
    // `?for=`: a CANCEL is open to the seller while no bid is in (the machine's bySeller rule), until the auction ends.
    const actions: ActionsAt = async (_s, id, snap, who, height) =>
      actionsOf(
        auctionDef,
        id,
        snap,
        [{ type: 'AUCTION_CANCEL', event: (_c, by) => ({ type: 'CANCEL' as const, by }), until: (c) => c.endsAt }],
        who,
        height,
      );
    const view = machineViewBehavior({ def: auctionDef, kv, store, head: () => head, log, actions });

    // Block 1 opens two auctions ending at 5 and 8.
    const e1 = [
      ...(await createInstance(s, auctionDef, 'a1', { seller: SELLER, reserve: '1', endsAt: 5 }, 1)).events,
      ...(await createInstance(s, auctionDef, 'a2', { seller: SELLER, reserve: '1', endsAt: 8 }, 1)).events,
    ];
    const b1 = await blockOf(kv, s, 1, e1);
    head = b1.head;
    await view.handle({ type: 'committed', block: b1.block });
    expect(await view.handle({ type: 'due', limit: 10 })).toEqual({
      height: 1,
      due: [
        { id: 'a1', status: 'open.waiting', at: 5 },
        { id: 'a2', status: 'open.waiting', at: 8 },
      ],
    });
    expect(await view.handle({ type: 'actions', id: 'a1', who: SELLER })).toEqual({
      actions: [{ type: 'AUCTION_CANCEL', from: 2, until: 5 }],
      at: 1,
    });
    expect(await view.handle({ type: 'actions', id: 'a1', who: BIDDER })).toEqual({ actions: [], at: 1 });
    expect(await view.handle({ type: 'actions', id: 'nope', who: SELLER })).toEqual({ actions: [], at: 1 });

    // Block 2 bids on a1 (a context step in another sub-state); then block 2 is undone.
    const e2 = (await sendEvent(s, auctionDef, 'a1', { type: 'BID', bidder: BIDDER, amount: '3' }, 2)).events;
    const b2 = await blockOf(kv, s, 2, e2);
    head = b2.head;
    await view.handle({ type: 'committed', block: b2.block });
    expect((await view.handle({ type: 'due', limit: 1 })).due).toEqual([{ id: 'a1', status: 'open.leading', at: 5 }]);
    // a bid is in: no cancel
    expect((await view.handle({ type: 'actions', id: 'a1', who: SELLER })).actions).toEqual([]);
    head = b1.head;
    await view.handle({ type: 'undone', blocks: [b2.block], head: b1.head });
    // as block 1 left it
    expect((await view.handle({ type: 'due', limit: 1 })).due).toEqual([{ id: 'a1', status: 'open.waiting', at: 5 }]);
    expect((await view.handle({ type: 'actions', id: 'a1', who: SELLER })).actions).toEqual([
      { type: 'AUCTION_CANCEL', from: 2, until: 5 },
    ]);
    const stats = await view.handle({ type: 'stats' });
    // the undone bid is not counted
    expect(stats).toEqual({ machine: 'auction', open: { 'open.waiting': 2 }, transitions: 2, height: 1 });

    // A fresh view (a restart) rebuilds from the feed, read at the head.
    feed.push(...e1);
    const again = machineViewBehavior({ def: auctionDef, kv, store, head: () => head, log });
    expect(await again.handle({ type: 'due', limit: 10 })).toEqual(await view.handle({ type: 'due', limit: 10 }));
  });
});
