import { decodeChainPage } from '../../chain/chainPage';
import { CHAIN_PAGE_BYTES } from '../../protocol/peers';
import type { Hex } from '../../primitives/hex';
import { MAX_TXS_PER_BLOCK } from '../../protocol/params';
import type { SignedTx } from '../../protocol/types';
import type { ChainPage, PeerStatus, PeerTransport } from '../peerClient';
import type { P2pHost } from './host';
import { isRecord } from '../../primitives/record';

/**
 * The request/response protocols one node serves another over libp2p (topics.ts requestProtocols): its status, a
 * range of its blocks as a binary chain page, transactions by id, and the addresses of its peers (peer exchange). Each request and each
 * answer is bounded in bytes before it is read (host.ts), and each answer is shape-checked before it is used.
 */

/** A status or a peer list is a few hundred bytes; these bounds leave room and no more. */
const SMALL_REQUEST = 256;
const STATUS_BYTES = 4 << 10;
const PEERS_BYTES = 64 << 10;
/** A page holds blocks up to CHAIN_PAGE_BYTES of JSON past its first block, which may be as large again; binary is a third of it. */
const PAGE_ANSWER_BYTES = 2 * CHAIN_PAGE_BYTES;
/** Peers named in one peer-exchange answer at most. */
export const PX_PEERS = 32;
/** A `txs` answer: a whole block's transactions as JSON, each up to ~10 KB, and some. */
const TXS_ANSWER_BYTES = 16 << 20;
/** A page may take a while to read from disk and to send; a status must come fast. A silent peer is cut sooner (host.ts). */
const PAGE_TIMEOUT_MS = 30_000;

const utf8 = new TextEncoder();
const text = new TextDecoder('utf-8', { fatal: true });
const json = (v: unknown) => utf8.encode(JSON.stringify(v));
const parse = (bytes: Uint8Array): unknown => JSON.parse(text.decode(bytes));

/** What a node answers: its status, its pages, and the addresses of its peers. */
export interface RequestServer {
  status(): PeerStatus;
  /** A binary chain page (ChainReader.chainBinary) from `from`, at most `limit` blocks. */
  chainPage(from: number, limit: number): Promise<Uint8Array>;
  /** Multiaddrs (each ending in /p2p/<id>) of peers this node is linked to. */
  peerAddresses(): Promise<string[]>;
}

export async function serveRequests(host: P2pHost, s: RequestServer): Promise<void> {
  const opts = { maxRequestBytes: SMALL_REQUEST };
  await host.handle('status', async () => json(s.status()), opts);
  await host.handle(
    'chain',
    async (request) => {
      const r = parse(request);
      if (!isRecord(r) || !Number.isSafeInteger(r.from) || !Number.isSafeInteger(r.limit))
        throw new Error('a chain request is {from, limit}');
      const from = Math.max(1, r.from as number);
      const limit = Math.min(200, Math.max(1, r.limit as number));
      return s.chainPage(from, limit);
    },
    opts,
  );
  await host.handle('peers', async () => json({ peers: (await s.peerAddresses()).slice(0, PX_PEERS) }), opts);
}

/** The peer id a book key names: the book keeps libp2p peers as `/p2p/<id>`. */
export const peerIdOf = (key: string): string => key.slice(key.lastIndexOf('/p2p/') + 5);
export const bookKeyOf = (peerId: string): string => `/p2p/${peerId}`;

function statusOf(v: unknown): PeerStatus {
  if (!isRecord(v) || !Number.isSafeInteger(v.height) || typeof v.hash !== 'string' || !/^0x[0-9a-f]{64}$/.test(v.hash))
    throw new Error('status: not a Cairn status');
  if (!Number.isSafeInteger(v.finalizedHeight) || !Number.isSafeInteger(v.justifiedHeight))
    throw new Error('status: heights are not integers');
  return {
    height: v.height as number,
    hash: v.hash as Hex,
    finalizedHeight: v.finalizedHeight as number,
    justifiedHeight: v.justifiedHeight as number,
    ...(typeof v.genesisHash === 'string' ? { genesisHash: v.genesisHash as Hex } : {}),
    ...(Number.isSafeInteger(v.chainId) ? { chainId: v.chainId as number } : {}),
  };
}

/** The sync's transport (p2pActor.ts) over libp2p requests: peers are book keys (`/p2p/<id>`). */
export function hostTransport(host: P2pHost): PeerTransport {
  return {
    async status(peer) {
      return statusOf(
        parse(await host.request(peerIdOf(peer), 'status', new Uint8Array(0), { maxResponseBytes: STATUS_BYTES })),
      );
    },
    async chain(peer, from, limit): Promise<ChainPage> {
      const bytes = await host.request(peerIdOf(peer), 'chain', json({ from, limit }), {
        maxResponseBytes: PAGE_ANSWER_BYTES,
        timeoutMs: PAGE_TIMEOUT_MS,
      });
      try {
        return decodeChainPage(bytes);
      } catch (e) {
        throw new Error(`chain: malformed binary page: ${(e as Error).message}`);
      }
    },
  };
}

/** Peer exchange: the multiaddrs a peer says it is linked to (at most PX_PEERS; each still has to answer a dial). */
export async function askPeers(host: P2pHost, peerId: string): Promise<string[]> {
  const v = parse(await host.request(peerId, 'peers', new Uint8Array(0), { maxResponseBytes: PEERS_BYTES }));
  if (!isRecord(v) || !Array.isArray(v.peers)) throw new Error('peers: not a peer list');
  return v.peers.filter((a): a is string => typeof a === 'string' && a.includes('/p2p/')).slice(0, PX_PEERS);
}

/**
 * Transactions by id (`txs`): a compact block's receiver asks its sender for those its mempool lacks. The answer is
 * the transactions' JSON (as a block carries them), in the order asked, null for one the server does not have.
 */
export async function serveTxsById(host: P2pHost, find: (id: Hex) => SignedTx | undefined): Promise<void> {
  await host.handle(
    'txs',
    async (request) => {
      const ids = parse(request);
      if (!Array.isArray(ids) || ids.length > MAX_TXS_PER_BLOCK) throw new Error('a txs request is a list of ids');
      return json(ids.map((id) => (typeof id === 'string' ? (find(id as Hex) ?? null) : null)));
    },
    { maxRequestBytes: 80 * MAX_TXS_PER_BLOCK },
  );
}

/** The transactions of `ids` a peer served, by id: only those whose id is the one asked (each is verified on import). */
export async function askTxsById(host: P2pHost, peerId: string, ids: readonly Hex[]): Promise<Map<Hex, SignedTx>> {
  const answer = parse(await host.request(peerId, 'txs', json(ids), { maxResponseBytes: TXS_ANSWER_BYTES }));
  if (!Array.isArray(answer) || answer.length !== ids.length) throw new Error('txs: not one answer per id');
  const got = new Map<Hex, SignedTx>();
  for (const [i, t] of answer.entries()) if (isRecord(t) && t.id === ids[i]) got.set(ids[i], t as unknown as SignedTx);
  return got;
}
