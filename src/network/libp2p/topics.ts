import { createHash } from 'node:crypto';
import type { Hex } from '../../primitives/hex';

/**
 * The gossip topics of one network, named by its genesis hash: a node of another chain subscribes to other names, so
 * its messages never reach this one's validation (gossipsub drops messages of topics a node is not subscribed to).
 * Versioned, so that a change of encoding is a new topic and not a fork of the old one.
 */
export interface GossipTopics {
  /** Batches of transaction envelopes (txBatch.ts). */
  txs: string;
  /** Blocks as the chain store keeps them. */
  blocks: string;
  /** Finality votes (room for the issue "Final in three slots"). */
  votes: string;
}

export function gossipTopics(genesisHash: Hex): GossipTopics {
  const net = genesisHash.toLowerCase();
  return { txs: `/cairn/${net}/txs/1`, blocks: `/cairn/${net}/blocks/1`, votes: `/cairn/${net}/votes/1` };
}

/** Bytes of a message id: enough of SHA-256 that two different messages never share one. */
const ID_BYTES = 20;

/**
 * A message's id is the hash of its bytes (messages carry no libp2p author: StrictNoSign), so the same transaction
 * batch or block arriving from several peers is recognised as a duplicate before it is decoded, and a peer cannot
 * make one message look new by re-sending it.
 */
export function messageId(data: Uint8Array): Uint8Array {
  // Node's native SHA-256: noble's (pure JS) was 5.8 % of a validator's main thread at 100 tx/s, hashing every copy of
  // every block and batch.
  return createHash('sha256').update(data).digest().subarray(0, ID_BYTES);
}

/** The request/response protocols of one network: one request and one answer per stream, each bounded in bytes. */
export interface RequestProtocols {
  /** The peer's head, finalized and justified heights. */
  status: string;
  /** A range of blocks as a binary chain page (chain/chainPage.ts). */
  chain: string;
  /** Transactions by id (a compact block's receiver asks for the ones its mempool lacks). */
  txs: string;
  /** State trie nodes by hash (state sync). */
  trie: string;
  /** Peer exchange: the addresses of the peers the asked node is linked to. */
  peers: string;
}

export function requestProtocols(genesisHash: Hex): RequestProtocols {
  const net = genesisHash.toLowerCase();
  const p = (name: string) => `/cairn/${net}/${name}/1`;
  return { status: p('status'), chain: p('chain'), txs: p('txs-by-id'), trie: p('trie'), peers: p('peers') };
}
