import type { HybridTx } from '../protocol/types';
import type { Network } from '../protocol/network';
import type {
  AccountProofView, AccountView, AddressTxsPage, BlockView, BridgeTransfersPage, BridgeTransferView, BridgeView, Direction, TransferStatus, GovernanceView, OraclesView, ProposalStatus, ProposalsPage, ProposalView, StatusView, TaskMode, TasksPage, TaskStatus,
  MachineDueView, SearchHit, SubmitVerdictView, TaskView, TreasuryView, TxRecord, TxStatus, ValidatorsView,
} from '../views';
import type { Hex } from '../primitives/hex';
import { encodeTx, signTx, type TxFields } from '../chain/envelope';
import type { HybridKeys } from '../crypto/keys';
import { CairnError } from '../errors/CairnError';
import {
  buildAssetTx,
  buildTx,
  type TxInput,
  createdAssetId,
  pageQuery,
  type AssetTxInput,
  type CollectionDetail,
  type CollectionList,
  type NameList,
  type NameView,
  type NftItemView,
  type PageOptions,
  type TokenHolders,
  type TokenList,
  type TokenTransfers,
  type TokenView,
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
  /** Per-request timeout; default 10 000 ms. */
  timeoutMs?: number;
}

/** Request errors that say nothing about the transaction: keep polling through them. */
const TRANSIENT_HTTP = new Set([404, 408, 425, 429, 500, 502, 503, 504]);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Thin typed client of the native HTTP API. HTTP failures are thrown as CairnError with
 * code `HTTP_<status>` and the node's `{error}` message; transport failures as `NETWORK`
 * (meta.errno, e.g. ECONNREFUSED) and request timeouts as `TIMEOUT` (meta.status and
 * meta.retryAfterMs when present).
 */
/** `?k=v&…` of the defined entries (empty without any). */
const query = (q: Record<string, unknown>): string => {
  const parts = Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
};

export class CairnClient {
  readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;

  constructor(baseUrl = 'http://127.0.0.1:6070', opts: ClientOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.fetchFn = opts.fetch ?? globalThis.fetch;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  status(): Promise<NodeStatus> {
    return this.get<NodeStatus>('/status');
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

  /** GET /search: addresses, blocks, transactions, tokens and names matching `q` or starting with it. */
  async search(q: string): Promise<SearchHit[]> {
    return (await this.get<{ results: SearchHit[] }>(`/search?q=${encodeURIComponent(q)}`)).results;
  }

  /** The account, or null when it never received anything (404: balance 0, nonce 0). */
  account(addr: string): Promise<Account | null> {
    return this.getOrNull<Account>(`/address/${encodeURIComponent(addr)}`);
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
      return { accepted: v.accepted === true, id: v.id ?? tx.id, ...(v.reason !== undefined ? { reason: v.reason } : {}) };
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
  async send(keys: HybridKeys, fields: Omit<TxFields, 'nonce'> & { nonce?: number }, opts: SendOptions = {}): Promise<SendResult> {
    const nonce = opts.nonce ?? fields.nonce ?? (await this.nextNonce(keys.address));
    const tx = signTx(keys, {
      ...fields,
      nonce,
      ...(opts.fee !== undefined ? { fee: opts.fee } : {}),
      ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {}),
    }, await this.network());
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

  /** Builds (buildTx: staking, governance, resources, vesting, permissions, META_TX and the asset types), signs and submits; see send. */
  sendTx(keys: HybridKeys, input: TxInput, opts: SendOptions = {}): Promise<SendResult> {
    return this.send(keys, buildTx(input), opts);
  }

  // ---- Assets (FT20, NFT721, names) ----

  /** GET /tokens: issued tokens, newest first; pass nextBefore as `before` for the next page. */
  tokens(page?: PageOptions): Promise<TokenList> {
    return this.get<TokenList>(`/tokens${pageQuery(page)}`);
  }

  /** GET /tokens/:id by id or symbol; null when no such token. */
  token(idOrSymbol: string): Promise<TokenView | null> {
    return this.getOrNull<TokenView>(`/tokens/${encodeURIComponent(idOrSymbol)}`);
  }

  /** GET /tokens/:id/holders, token by id or symbol (throws HTTP_404 for an unknown token). */
  tokenHolders(id: string, page?: PageOptions): Promise<TokenHolders> {
    return this.get<TokenHolders>(`/tokens/${encodeURIComponent(id)}/holders${pageQuery(page)}`);
  }

  /** GET /tokens/:id/transfers, token by id or symbol, newest first (throws HTTP_404 for an unknown token). */
  tokenTransfers(id: string, page?: PageOptions): Promise<TokenTransfers> {
    return this.get<TokenTransfers>(`/tokens/${encodeURIComponent(id)}/transfers${pageQuery(page)}`);
  }

  /** GET /nfts: NFT721 collections. */
  nfts(page?: PageOptions): Promise<CollectionList> {
    return this.get<CollectionList>(`/nfts${pageQuery(page)}`);
  }

  /** GET /nfts/:collection by id or symbol, with a page of its items; null when unknown. */
  nftCollection(collection: string, page?: PageOptions): Promise<CollectionDetail | null> {
    return this.getOrNull<CollectionDetail>(`/nfts/${encodeURIComponent(collection)}${pageQuery(page)}`);
  }

  /** GET /nfts/:collection:item (collection by id or symbol); null when unknown or burned. */
  nftItem(collection: string, item: number): Promise<NftItemView | null> {
    return this.getOrNull<NftItemView>(`/nfts/${encodeURIComponent(collection)}:${item}`);
  }

  /** GET /names: registered names. */
  names(page?: PageOptions): Promise<NameList> {
    return this.get<NameList>(`/names${pageQuery(page)}`);
  }

  /** GET /name/:name: what the name resolves to; null when it is not registered. */
  resolveName(name: string): Promise<NameView | null> {
    return this.getOrNull<NameView>(`/name/${encodeURIComponent(name)}`);
  }

  /** The transaction, confirmed or pending; null when this node does not know it (yet). */
  tx(id: string): Promise<TxRecord | null> {
    return this.getOrNull<TxRecord>(`/tx/${encodeURIComponent(id)}`);
  }

  /** GET /validators: the active set, the bank, the slot producer, the epoch, each validator's performance. */
  validators(): Promise<ValidatorsView> {
    return this.get<ValidatorsView>('/validators');
  }

  /** GET /governance: every governable parameter (value, bounds, changedAt) and the proposal counts. */
  governance(): Promise<GovernanceView> {
    return this.get<GovernanceView>('/governance');
  }

  /** GET /governance/proposals: filtered by status; `since` returns what changed after that height (follow with the cursor). */
  proposals(q: { status?: ProposalStatus; since?: number; limit?: number } = {}): Promise<ProposalsPage> {
    return this.get<ProposalsPage>(`/governance/proposals${query(q)}`);
  }

  /** GET /governance/proposals/:id; null when unknown. With `for`, its `actions`: what that address may send to it now. */
  proposal(id: string, q: { for?: string } = {}): Promise<ProposalView | null> {
    return this.getOrNull<ProposalView>(`/governance/proposals/${encodeURIComponent(id)}${query(q)}`);
  }

  /** GET /treasury. */
  treasury(): Promise<TreasuryView> {
    return this.get<TreasuryView>('/treasury');
  }

  /**
   * GET /ai/tasks, filtered by status, mode or oracle. With `since`: the task transitions after
   * that height, whole blocks, and a `cursor` to pass next (nothing skipped or repeated); with
   * `final: true` only final heights, so no reorganization can take a transition back.
   */
  tasks(q: { status?: TaskStatus; mode?: TaskMode; oracle?: string; since?: number; final?: boolean; limit?: number } = {}): Promise<TasksPage> {
    return this.get<TasksPage>(`/ai/tasks${query(q)}`);
  }

  /** GET /ai/tasks/:id; null when unknown. With `for`, its `actions`: what that address may send to it now. */
  task(id: string, q: { for?: string } = {}): Promise<TaskView | null> {
    return this.getOrNull<TaskView>(`/ai/tasks/${encodeURIComponent(id)}${query(q)}`);
  }

  /** GET /ai/oracles. */
  oracles(): Promise<OraclesView> {
    return this.get<OraclesView>('/ai/oracles');
  }

  /** GET /bridge/transfers: filtered by direction and status; with `since`, the transitions after it and a cursor (as tasks()). */
  bridgeTransfers(q: { direction?: Direction; status?: TransferStatus; since?: number; final?: boolean; limit?: number } = {}): Promise<BridgeTransfersPage> {
    return this.get<BridgeTransfersPage>(`/bridge/transfers${query(q)}`);
  }

  /** GET /bridge/transfers/:id; null when unknown. With `for`, its `actions`: what that address may send to it now. */
  bridgeTransfer(id: string, q: { for?: string } = {}): Promise<BridgeTransferView | null> {
    return this.getOrNull<BridgeTransferView>(`/bridge/transfers/${encodeURIComponent(id)}${query(q)}`);
  }

  /** GET /machines/:name/due: the machine's open instances that move by themselves next, soonest first. */
  machineDue(name: string, q: { limit?: number } = {}): Promise<MachineDueView> {
    return this.get<MachineDueView>(`/machines/${encodeURIComponent(name)}/due${query(q)}`);
  }

  /** GET /bridge: the committee, the pools and the breaker's current window. */
  bridge(): Promise<BridgeView> {
    return this.get<BridgeView>('/bridge');
  }

  /** GET /address/:end/txs: the address's transactions, newest first, whole blocks per page; pass nextBefore as `before`. */
  addressTxs(addr: string, page: { limit?: number; before?: number } = {}): Promise<AddressTxsPage> {
    return this.get<AddressTxsPage>(`/address/${encodeURIComponent(addr)}/txs${query(page)}`);
  }

  /** Block by height or hash; null when above the head or unknown. */
  block(ref: number | string): Promise<BlockRecord | null> {
    return this.getOrNull<BlockRecord>(`/blocks/${encodeURIComponent(String(ref))}`);
  }

  /**
   * Merkle proof of the account against the stateRoot of the head block (or of block
   * `height`). Check it with verifyAccountProof(stateRoot, address, proof), taking the
   * stateRoot from a header you trust, not from this same answer.
   */
  proof(addr: string, height?: number): Promise<AccountProof> {
    const q = height === undefined ? '' : `?height=${height}`;
    return this.get<AccountProof>(`/proof/${encodeURIComponent(addr)}${q}`);
  }

  /**
   * Polls GET /tx/:id until the transaction reaches `until`, is dropped, or time runs out.
   * A timeout is 'unknown', never 'failed': the transaction may still land, so confirm
   * by id before resending. 404s (still propagating), 429s, 5xx and transport errors are
   * tolerated. 'dropped' covers a 'refused' record too. 'failed' means included with a failed execution result, reported at the
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
  private async classify(r: TxRecord, until: 'included' | 'finalized', remainingMs: number): Promise<WaitOutcome | null> {
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

  private get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  private async getOrNull<T>(path: string, timeoutMs?: number): Promise<T | null> {
    try {
      return await this.request<T>('GET', path, undefined, timeoutMs);
    } catch (e) {
      if (e instanceof CairnError && e.code === 'HTTP_404') return null;
      throw e;
    }
  }

  private async request<T>(method: string, path: string, body?: string, timeoutMs = this.timeoutMs): Promise<T> {
    const url = this.baseUrl + path;
    let res: Response;
    try {
      res = await this.fetchFn(url, {
        method,
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(Math.min(timeoutMs, this.timeoutMs)),
      });
    } catch (e) {
      const name = (e as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new CairnError('TIMEOUT', `${method} ${url}: no answer within ${Math.min(timeoutMs, this.timeoutMs)} ms`, {}, { cause: e });
      const code = (e as { cause?: { code?: unknown } })?.cause?.code;
      throw new CairnError('NETWORK', `${method} ${url}: ${describeCause(e)}`, typeof code === 'string' ? { errno: code } : {}, { cause: e });
    }
    const text = await res.text().catch(() => '');
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
    if (json === undefined) throw new CairnError('BAD_RESPONSE', `${method} ${path}: expected a JSON body`, { status: res.status });
    return json as T;
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
