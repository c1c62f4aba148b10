import pino from 'pino';
import { Supervisor } from '../../src/actors/supervisor';
import { startNetwork } from '../../src/network/network';
import type { PostTransport } from '../../src/network/peerClient';
import type { Behavior } from '../../src/actors/actorRef';
import type { P2pMsg } from '../../src/actors/protocol';
import { p2pBehavior, type P2pDeps } from '../../src/network/p2pActor';
import type { Head } from '../../src/protocol/chain';
import type { Block } from '../../src/protocol/types';

/** What the p2p tests share: a genesis, heads and blocks that are only their height and hash, a silent log. */
export const quietLog = pino({ level: 'silent' });
export const GENESIS = `0x${'11'.repeat(32)}` as const;
export const hashOf = (h: number) => `0x${h.toString(16).padStart(64, '0')}` as const;
export const headAt = (height: number, timestamp = 0): Head => ({
  height,
  hash: hashOf(height),
  stateRoot: GENESIS,
  finalizedHeight: 0,
  timestamp,
});
/** Only what the p2p actor reads of a block: its header's height and hash. */
export const blockAt = (height: number) => ({ header: { height, hash: hashOf(height) } }) as unknown as Block;

/**
 * The p2p actor under test: one peer `sim://a`, GENESIS and chain id 7, a clock at 5 s, a consensus actor that must
 * not be asked; `deps` replaces any of it (the transport always).
 */
export function testP2p(deps: Partial<P2pDeps> & { transport: PostTransport }): Behavior<P2pMsg> {
  return p2pBehavior({
    peers: () => ['sim://a'],
    consensus: {
      ask: async () => {
        throw new Error('not asked');
      },
    },
    view: { head: headAt(0) },
    genesisHash: GENESIS,
    chainId: 7,
    book: new Map(),
    log: quietLog,
    now: () => 5_000,
    ...deps,
  });
}

/**
 * The node's network side (network/network.ts) as `cairn node` starts it, with one peer `sim://a` over `transport`,
 * GENESIS and chain id 7, 500 ms slots; stop its `supervisor` at the end.
 */
export async function testNetwork(d: {
  consensus: { ask: (m: never) => Promise<unknown> };
  transport: PostTransport;
  head?: Head;
  now?: () => number;
}) {
  const supervisor = new Supervisor(quietLog, () => {});
  const net = await startNetwork({
    peers: ['sim://a'],
    consensus: d.consensus as never,
    view: { head: d.head ?? headAt(0) },
    genesisHash: GENESIS,
    chainId: 7,
    supervisor,
    log: quietLog,
    slotMs: 500,
    idleBlockMs: 2_000,
    now: d.now ?? (() => 1_000),
    transport: d.transport,
  });
  return { net, supervisor };
}
