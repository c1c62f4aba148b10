import type { HybridTx } from '../protocol/types';
import type { Network } from '../protocol/network';
import type {
  AccountProofView,
  AccountView,
  BlockView,
  StatusView,
  SubmitVerdictView,
  TxRecord,
  TxStatus,
} from '../views';
import type { Hex } from '../primitives/hex';
import type { RouteSpec } from '../views/routes';
import { ROUTE_NAMES, ROUTES, routeRequest, type RouteMethods } from './routes';
import { encodeTx, signTx, type TxFields } from '../chain/envelope';
import type { HybridKeys } from '../crypto/keys';
import { CairnError } from '../errors/CairnError';
import {
  buildAssetTx,
  buildTx,
  createdAssetId,
  type AssetTxInput,
  type CollectionDetail,
  type NftItemView,
  type PageOptions,
  type TxInput,
} from './assets';

// The response shapes are the server's own (views/), so the two cannot drift apart.
/** GET /address/:end (docs/API.md "GET /address/:end"); amounts are integer strings in base units. */
export type Account = AccountView;
/** GET /tx/:id: the transaction, where the node has it and its lifecycle state. */
export type { TxRecord, TxStatus };
/** GET /status. */
export type NodeStatus = StatusView;
/** GET /blocks/:ref. */
export type BlockRecord = BlockView;
/** GET /proof/:end. `account` is null when the proof shows the account does not exist. */
export type AccountProof = AccountProofView;

/** POST /tx's answer (a 400 refusal is returned in the same shape, with its reason). */
export type SubmitVerdict = SubmitVerdictView;

export type WaitOutcome = 'included' | 'finalized' | 'failed' | 'dropped' | 'unknown';

/** The transaction is in a block: a wait for inclusion may first see it already final. */
export const inBlock = (o: WaitOutcome | undefined): boolean => o === 'included' || o === 'finalized';

export interface WaitOptions {
  /** 'included' (default): executed in a block; 'finalized': irreversible. */
  until?: 'included' | 'finalized';
  timeoutMs?: number; // default 60 000
  pollMs?: number; // default 500
}

export interface WaitResult {
  outcome: WaitOutcome;
  /** The last record the node returned (null if it never knew the id). */
  record: TxRecord | null;
}

/** Options of send / sendAsset. */
export interface SendOptions {
  /** Default: the account's nextNonce, read from the node. */
  nonce?: number;
  /** Most base units the node may burn (a limit, not a bid); default the signer's default. */
  fee?: bigint | string;
  timestamp?: number;
  /** After acceptance, wait for this outcome (waitFor); default: do not wait. */
  wait?: 'included' | 'finalized';
  timeoutMs?: number;
  pollMs?: number;
}

export interface SendResult {
  tx: HybridTx;
  verdict: SubmitVerdict;
  /** Present when `wait` was asked for and the node accepted the transaction. */
  wait?: WaitResult;
}

export interface SendAssetResult extends SendResult {
  /** TOKEN_CREATE / NFT_CREATE: the id of the token or collection the transaction creates. */
  assetId?: Hex;
}

export interface ClientOptions {
  fetch?: typeof fetch;
  /** The node's --admin-token, sent to the admin routes (peers, alerts, /dev/*). */
  adminToken?: string;
  /** Per-request timeout; default 10 000 ms. */
  timeoutMs?: number;
}

/** Request errors that say nothing about the transaction: keep polling through them. */
const TRANSIENT_HTTP = new Set([404, 408, 425, 429, 500, 502, 503, 504]);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * One method per route of the node (views/routes), typed by the route: `client.validators()`,
 * `client.proposals({ status: 'VOTING' })`, `client.token('CUSD')` (null when the node has no
 * such token: the lookups answer null for a 404). Path parameters come first, in order, then
 * the query, then a POST's body.
 */
export interface CairnClient extends RouteMethods {}

/**
 * Thin typed client of the native HTTP API. HTTP failures are thrown as CairnError with
 * code `HTTP_<status>` and the node's `{error}` message; transport failures as `NETWORK`
 * (meta.errno, e.g. ECONNREFUSED) and request timeouts as `TIMEOUT` (meta.status and
 * meta.retryAfterMs when present).
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns the route methods (the table's)
export class CairnClient {
  readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private readonly adminToken: string | undefined;

  constructor(baseUrl = 'http://127.0.0.1:6070', opts: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? globalThis.fetch;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.adminToken = opts.adminToken;
    const self = this as unknown as Record<string, unknown>;
    for (const name of ROUTE_NAMES) self[name] = (...args: unknown[]) => this.call(ROUTES[name], args);
  }

  /** A route of the table with the arguments of its method (see RouteMethods). */
  async call(r: RouteSpec, args: readonly unknown[]): Promise<unknown> {
    const { path, body } = routeRequest(r, args);
    const headers = r.admin && this.adminToken !== undefined ? { 'x-admin-token': this.adminToken } : undefined;
    const text = 'text' in r.ok;
    const answer = this.request(r.method, path, body, undefined, { headers, text });
    return r.nullIfMissing ? nullIfMissing(answer) : answer;
  }

  private networkMemo: Promise<Network> | undefined;

  /** The node's chain (chain id and genesis hash, from GET /status), asked once: what send signs for. */
  network(): Promise<Network> {
    this.networkMemo ??= this.status().then(
      (s) => ({ chainId: s.chainId, genesisHash: s.genesisHash }),
      (e: unknown) => {
        this.networkMemo = undefined; // a failed ask is asked again
        throw e;
      },
    );
    return this.networkMemo;
  }

  /** Nonce for the sender's next transaction; counts its contiguous pending ones. */
  async nextNonce(addr: string): Promise<number> {
    return (await this.account(addr))?.nextNonce ?? 0;
  }

  /**
   * POST /tx. `accepted: true` only means this node's mempool took it; confirm with
   * waitFor. A 400 refusal is returned as a verdict, not thrown.
   */
  async submit(tx: HybridTx): Promise<SubmitVerdict> {
    try {
      const v = await this.request<SubmitVerdict>('POST', '/tx', encodeTx(tx));
      return {
        accepted: v.accepted === true,
        id: v.id ?? tx.id,
        ...(v.reason !== undefined ? { reason: v.reason } : {}),
      };
    } catch (e) {
      if (e instanceof CairnError && e.code === 'HTTP_400') return { accepted: false, id: tx.id, reason: e.message };
      throw e;
    }
  }

  /**
   * Signs `fields` with `keys` (nonce from the node unless given), submits, and with
   * opts.wait waits for the outcome. A refusal is a verdict with accepted false, not an
   * error; transport errors are thrown (the transaction may then have reached the node:
   * check `tx.id` with waitFor before resending, see CairnError meta.txId).
   */
  async send(
    keys: HybridKeys,
    fields: Omit<TxFields, 'nonce'> & { nonce?: number },
    opts: SendOptions = {},
  ): Promise<SendResult> {
    const nonce = opts.nonce ?? fields.nonce ?? (await this.nextNonce(keys.address));
    const tx = signTx(
      keys,
      {
        ...fields,
        nonce,
        ...(opts.fee !== undefined ? { fee: opts.fee } : {}),
        ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {}),
      },
      await this.network(),
    );
    let verdict: SubmitVerdict;
    try {
      verdict = await this.submit(tx);
    } catch (e) {
      if (e instanceof CairnError) e.meta.txId ??= tx.id;
      throw e;
    }
    if (!verdict.accepted || opts.wait === undefined) return { tx, verdict };
    const wait = await this.waitFor(tx.id, { until: opts.wait, timeoutMs: opts.timeoutMs, pollMs: opts.pollMs });
    return { tx, verdict, wait };
  }

  /**
   * Builds (buildAssetTx: throws CairnError INVALID_ASSET_TX on bad input), signs and
   * submits one asset transaction; see send. For TOKEN_CREATE and NFT_CREATE the result
   * carries the new asset's id.
   */
  async sendAsset(keys: HybridKeys, input: AssetTxInput, opts: SendOptions = {}): Promise<SendAssetResult> {
    const r = await this.send(keys, buildAssetTx(input), opts);
    const id = createdAssetId(r.tx);
    return id === undefined ? r : { ...r, assetId: id };
  }

  /**
   * Builds (buildTx: staking, governance, resources, vesting, permissions, META_TX and the asset types), signs and
   * submits; see send.
   */
  sendTx(keys: HybridKeys, input: TxInput, opts: SendOptions = {}): Promise<SendResult> {
    return this.send(keys, buildTx(input), opts);
  }

  // ---- Assets (FT20, NFT721, names) ----

  /** GET /nfts/:collection by id or symbol, with a page of its items; null when unknown. */
  nftCollection(collection: string, page?: PageOptions): Promise<CollectionDetail | null> {
    return this.nft(collection, page) as Promise<CollectionDetail | null>;
  }

  /** GET /nfts/:collection:item (collection by id or symbol); null when unknown or burned. */
  nftItem(collection: string, item: number): Promise<NftItemView | null> {
    return this.nft(`${collection}:${item}`) as Promise<NftItemView | null>;
  }

  /**
   * Polls GET /tx/:id until the transaction reaches `until`, is dropped, or time runs out.
   * A timeout is 'unknown', never 'failed': the transaction may still land, so confirm
   * by id before resending. 404s (still propagating), 429s, 5xx and transport errors are
   * tolerated. 'dropped' covers a 'refused' record too. 'failed' means included with a failed execution result,
   * reported at the
   * level asked for (with until 'finalized', only once the block is final).
   * 'undone' (reorganised away) keeps polling, since the transaction may be re-included.
   */
  async waitFor(id: string, opts: WaitOptions = {}): Promise<WaitResult> {
    const until = opts.until ?? 'included';
    const pollMs = Math.max(1, opts.pollMs ?? 500);
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    let record: TxRecord | null = null;
    for (;;) {
      let delay = pollMs;
      try {
        const remaining = Math.max(1, deadline - Date.now());
        const r = await this.getOrNull<TxRecord>(`/tx/${encodeURIComponent(id)}`, remaining);
        if (r) record = r;
        const outcome = r ? await this.classify(r, until, remaining) : null;
        if (outcome) return { outcome, record };
      } catch (e) {
        if (!isTransient(e)) throw e;
        const retryAfter = (e as CairnError).meta.retryAfterMs;
        if (typeof retryAfter === 'number') delay = Math.max(delay, retryAfter);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return { outcome: 'unknown', record };
      await sleep(Math.min(delay, remaining));
    }
  }

  /** A terminal outcome for `r`, or null to keep polling. */
  private async classify(
    r: TxRecord,
    until: 'included' | 'finalized',
    remainingMs: number,
  ): Promise<WaitOutcome | null> {
    // Either way this node will not include it: the caller must decide whether to resend.
    if (r.status === 'dropped' || r.status === 'refused') return 'dropped';
    if (r.status !== 'included' && r.status !== 'finalized') return null; // pending, undone
    let final = r.status === 'finalized';
    if (!final && until === 'finalized' && typeof r.blockHeight === 'number') {
      // Finality (docs/API.md "Status values"): finalizedHeight (from /status) >= the transaction's blockHeight.
      const s = await this.request<NodeStatus>('GET', '/status', undefined, remainingMs);
      final = typeof s.finalizedHeight === 'number' && s.finalizedHeight >= r.blockHeight;
    }
    if (until === 'finalized' && !final) return null;
    if (r.result?.status === 'failed') return 'failed';
    return final ? 'finalized' : 'included';
  }

  private getOrNull<T>(path: string, timeoutMs?: number): Promise<T | null> {
    return nullIfMissing(this.request<T>('GET', path, undefined, timeoutMs));
  }

  private async request<T>(
    method: string,
    path: string,
    body?: string,
    timeoutMs = this.timeoutMs,
    opts: { headers?: Record<string, string>; text?: boolean } = {},
  ): Promise<T> {
    const url = this.baseUrl + path;
    let res: Response;
    try {
      res = await this.fetchFn(url, {
        method,
        headers: {
          accept: opts.text ? '*/*' : 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...opts.headers,
        },
        body,
        signal: AbortSignal.timeout(Math.min(timeoutMs, this.timeoutMs)),
      });
    } catch (e) {
      const name = (e as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new CairnError(
          'TIMEOUT',
          `${method} ${url}: no answer within ${Math.min(timeoutMs, this.timeoutMs)} ms`,
          {},
          { cause: e },
        );
      const code = (e as { cause?: { code?: unknown } })?.cause?.code;
      throw new CairnError(
        'NETWORK',
        `${method} ${url}: ${describeCause(e)}`,
        typeof code === 'string' ? { errno: code } : {},
        { cause: e },
      );
    }
    const text = await res.text().catch(() => '');
    if (res.ok && opts.text) return text as T;
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const err = (json as { error?: unknown } | undefined)?.error;
      const message = typeof err === 'string' ? err : `${method} ${path}: HTTP ${res.status} ${res.statusText}`.trim();
      const meta: Record<string, unknown> = { status: res.status };
      const retryAfter = Number(res.headers.get('retry-after'));
      if (res.headers.has('retry-after') && Number.isFinite(retryAfter)) meta.retryAfterMs = retryAfter * 1000;
      throw new CairnError(`HTTP_${res.status}`, message, meta);
    }
    if (json === undefined)
      throw new CairnError('BAD_RESPONSE', `${method} ${path}: expected a JSON body`, { status: res.status });
    return json as T;
  }
}

/** A lookup's 404 is an answer ("no such thing"), not a failure. */
async function nullIfMissing<T>(answer: Promise<T>): Promise<T | null> {
  try {
    return await answer;
  } catch (e) {
    if (e instanceof CairnError && e.code === 'HTTP_404') return null;
    throw e;
  }
}

function isTransient(e: unknown): boolean {
  if (!(e instanceof CairnError)) return false;
  if (e.code === 'NETWORK' || e.code === 'TIMEOUT' || e.code === 'BAD_RESPONSE') return true;
  return typeof e.meta.status === 'number' && TRANSIENT_HTTP.has(e.meta.status);
}

/** fetch wraps the useful reason (ECONNREFUSED…) in `cause`. */
function describeCause(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (e as Error)?.message ?? String(e);
}
