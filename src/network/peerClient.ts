import { TypeCompiler } from '@sinclair/typebox/compiler';
import { parseBlock } from '../chain/blockShape';
import { decodeChainPage } from '../chain/chainPage';
import { CHAIN_PAGE_MEDIA } from '../protocol/peers';
import { SIGNED_HEADER_SCHEMA } from '../crypto/blockHeader';
import { fromHex, toHex, type Hex } from '../primitives/hex';
import type { Block, SignedBlockHeader, SignedTx } from '../protocol/types';
import type { Head } from '../protocol/chain';
import type { Network } from '../protocol/network';

/**
 * HTTP calls to a configured peer (its native API): status, chain pages, gossip. Only the
 * URLs of the configuration are ever fetched — never one a peer names. Every call has a
 * timeout; every answer is shape-checked before use.
 */

/**
 * How the p2p actor reaches a peer, by its configured URL. The node uses `httpTransport` (the
 * calls below); a test or a simulator passes its own (StartHooks.transport).
 */
export interface PeerTransport {
  status(peer: string): Promise<PeerStatus>;
  chain(peer: string, from: number, limit: number): Promise<ChainPage>;
}

/** Gossip by posting to each peer (the HTTP API's POST /blocks and POST /tx): tests' (the gossip actor's). */
export interface PostTransport extends PeerTransport {
  /** Resolves to the peer's HTTP status (a refusal is the peer's business, not an error). */
  postBlock(peer: string, block: Block): Promise<number>;
  /** Resolves to whether the peer accepted it. */
  postTx(peer: string, tx: SignedTx): Promise<boolean>;
}

/** One page of full blocks; `next`: where the next page starts, null at the peer's head. */
export interface ChainPage {
  blocks: Block[];
  next: number | null;
}

export interface PeerStatus {
  height: number;
  hash: Hex;
  finalizedHeight: number;
  justifiedHeight: number;
  genesisHash?: Hex;
  chainId?: number;
}

/** A node's status as its peers are told it (the libp2p status request; the simulator's host serves it too). */
export const peerStatusOf = (h: Head, network: Network): PeerStatus => ({
  height: h.height,
  hash: h.hash,
  finalizedHeight: h.finalizedHeight,
  justifiedHeight: h.justifiedHeight ?? h.finalizedHeight,
  genesisHash: network.genesisHash,
  chainId: network.chainId,
});

const TIMEOUT_MS = 5_000;

async function call(url: string, init?: RequestInit, timeoutMs = TIMEOUT_MS): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
}

export async function fetchStatus(peer: string): Promise<PeerStatus> {
  const r = await call(`${peer}/status`);
  if (!r.ok) throw new Error(`GET /status answered ${r.status}`);
  const s = (await r.json()) as Record<string, unknown>;
  const height = s.height;
  const hash = s.headHash;
  if (!Number.isSafeInteger(height) || typeof hash !== 'string' || !Number.isSafeInteger(s.finalizedHeight))
    throw new Error('GET /status: not a Cairn status');
  return {
    height: height as number,
    hash: hash as Hex,
    finalizedHeight: s.finalizedHeight as number,
    justifiedHeight: Number.isSafeInteger(s.justifiedHeight) ? (s.justifiedHeight as number) : 0,
    ...(typeof s.genesisHash === 'string' ? { genesisHash: s.genesisHash as Hex } : {}),
    ...(Number.isSafeInteger(s.chainId) ? { chainId: s.chainId as number } : {}),
  };
}

/**
 * One page of full blocks from `from` (GET /chain), each shape-checked. Asked for in binary (chain/chainPage.ts); a
 * peer that answers JSON (one from before the binary page) is read as JSON.
 */
export async function fetchChain(peer: string, from: number, limit: number): Promise<ChainPage> {
  const r = await call(
    `${peer}/chain?from=${from}&limit=${limit}`,
    { headers: { accept: `${CHAIN_PAGE_MEDIA}, application/json;q=0.5` } },
    30_000,
  );
  if (!r.ok) throw new Error(`GET /chain answered ${r.status}`);
  if ((r.headers.get('content-type') ?? '').startsWith(CHAIN_PAGE_MEDIA)) {
    const bytes = new Uint8Array(await r.arrayBuffer());
    try {
      return decodeChainPage(bytes);
    } catch (e) {
      throw new Error(`GET /chain: malformed binary page: ${(e as Error).message}`);
    }
  }
  const page = (await r.json()) as { blocks?: unknown; next?: unknown };
  if (!Array.isArray(page.blocks)) throw new Error('GET /chain: no blocks array');
  const blocks: Block[] = [];
  for (const raw of page.blocks) {
    // height, hash and size are the page's conveniences (the /blocks/:ref fields); the block is the rest, and its
    // header says the same.
    const { size: _s, height, hash, ...b } = raw as { size?: unknown; height?: unknown; hash?: unknown };
    const parsed = parseBlock(b);
    if (
      parsed.ok &&
      ((height !== undefined && height !== parsed.block.header.height) ||
        (hash !== undefined && hash !== parsed.block.header.hash))
    )
      throw new Error("GET /chain: an item's height or hash differs from its header");
    if (!parsed.ok) throw new Error(`GET /chain: ${parsed.error}`);
    blocks.push(parsed.block);
  }
  return { blocks, next: Number.isSafeInteger(page.next) ? (page.next as number) : null };
}

/** POST /blocks; resolves to the peer's HTTP status (a refusal is the peer's business, not an error). */
export async function postBlock(peer: string, block: Block): Promise<number> {
  const r = await call(`${peer}/blocks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(block),
  });
  await r.arrayBuffer();
  return r.status;
}

/** POST /tx (relay); resolves to whether the peer accepted it. */
export async function postTx(peer: string, tx: SignedTx): Promise<boolean> {
  const r = await call(`${peer}/tx`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(tx),
  });
  const v = (await r.json().catch(() => ({}))) as { accepted?: unknown };
  return v.accepted === true;
}

/** The peers' native HTTP API. */
export const httpTransport: PostTransport = { status: fetchStatus, chain: fetchChain, postBlock, postTx };

/** What a node joining by state sync asks of a peer (node/stateSync.ts). */
export interface SnapshotTransport {
  status(peer: string): Promise<PeerStatus>;
  /** The signed headers of the snapshots the peer serves, newest first (GET /snapshots), each shape-checked. */
  snapshots(peer: string): Promise<SignedBlockHeader[]>;
  /** State nodes by hash (POST /snapshots/nodes), in the order asked; undefined where the peer has none. */
  stateNodes(peer: string, hashes: readonly Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
}

/** A peer answered 429: ask it again after `ms`. */
export class PeerBusy extends Error {
  constructor(readonly ms: number) {
    super(`the peer is rate-limiting this node: retry in ${ms} ms`);
  }
}

async function checked(r: Response, what: string): Promise<unknown> {
  if (r.status === 429) {
    await r.arrayBuffer();
    throw new PeerBusy(Math.min(60_000, 1_000 * (Number(r.headers.get('retry-after')) || 1)));
  }
  if (!r.ok) throw new Error(`${what} answered ${r.status}`);
  return r.json();
}

const headerShape = TypeCompiler.Compile(SIGNED_HEADER_SCHEMA);
const HEX = /^0x(?:[0-9a-f]{2})+$/;

export async function fetchSnapshots(peer: string): Promise<SignedBlockHeader[]> {
  const v = (await checked(await call(`${peer}/snapshots`), 'GET /snapshots')) as { snapshots?: unknown };
  if (!Array.isArray(v.snapshots) || !v.snapshots.every((h) => headerShape.Check(h)))
    throw new Error('GET /snapshots: not a list of signed headers');
  return v.snapshots as SignedBlockHeader[];
}

export async function fetchStateNodes(
  peer: string,
  hashes: readonly Uint8Array[],
): Promise<(Uint8Array | undefined)[]> {
  const r = await call(
    `${peer}/snapshots/nodes`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hashes: hashes.map(toHex) }),
    },
    30_000,
  );
  const v = (await checked(r, 'POST /snapshots/nodes')) as { nodes?: unknown };
  const nodes = v.nodes;
  if (!Array.isArray(nodes) || nodes.length !== hashes.length)
    throw new Error('POST /snapshots/nodes: not one answer per hash asked');
  return nodes.map((n) => {
    if (n === null) return undefined;
    if (typeof n !== 'string' || !HEX.test(n)) throw new Error('POST /snapshots/nodes: a node is not hex');
    return fromHex(n as Hex);
  });
}

/** The peers' native HTTP API, for state sync. */
export const httpSnapshots: SnapshotTransport = {
  status: fetchStatus,
  snapshots: fetchSnapshots,
  stateNodes: fetchStateNodes,
};
