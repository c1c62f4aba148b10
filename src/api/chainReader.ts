import type { TxPool } from '../mempool/pool';
import { HeadMemo, JsonText } from './headMemo';
import { andThen, type MaybePromise } from '../primitives/maybe';
import { newAccount, viewAccount } from '../protocol/accounts';
import { loadSupply } from '../protocol/execState';
import { MAX_TXS_PER_BLOCK, TREASURY_ADDRESS } from '../protocol/params';
import type { Network } from '../protocol/network';
import { loadParams } from '../protocol/governable';
import { isFeeExempt, maxEnergy } from '../protocol/energy';
import type { BlockSummary } from '../protocol/chain';
import { finalityBehind } from '../consensus/finality';
import { getSchedule } from '../modules/staking';
import type { AccountState, Address, Block, HybridTx, SignedTx } from '../protocol/types';
import { parseAddress, toNative } from '../crypto/address';
import { lifecycleState, STATUS_OF, type TxLifecycleSnapshot } from '../machines/txLifecycle';
import type { Hex } from '../primitives/hex';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { codeKey } from '../vm/stateAdapter';
import type { ContractMetadata } from '../contracts/verify';
import type { ChainStore } from '../storage/chainStore';
import type { ActorRef } from '../actors/actorRef';
import type { MempoolMsg, MempoolReplies } from '../actors/protocol';
import type { LifecycleActors } from '../actors/lifecycleActors';
import type {
  AccountProofView,
  AccountView,
  AddressTxsPage,
  AnalysisView,
  BlockLifecycleView,
  BlockSummaryView,
  BlockView,
  ChainPage,
  InternalTransferView,
  LogView,
  MempoolView,
  ProvedAccount,
  SearchHit,
  StatsView,
  StatusView,
  TxRecord,
  TxStatus,
  TxSummary,
} from '../views';
import { AssetReader } from './assetReader';
import { GovernanceReader } from './governanceReader';
import { AiReader } from './aiReader';
import { BridgeReader } from './bridgeReader';
import { SnapshotReader } from './snapshotReader';
import { BlockCache } from './blockCache';
import { actionsAtHead, type MachineActions } from './machineActions';
import type { ChainBytes, ChainQueries, ChainText, ReadModel } from './ports';
import { CHAIN_PAGE_BYTES } from '../protocol/peers';

/**
 * The bound of a JSON /chain page (past its first block): a 16 MiB page, the binary page's bound, took ~200 ms of
 * the serving thread to build and send; peers sync in binary, and a JSON reader follows `next`.
 */
export const CHAIN_JSON_PAGE_BYTES = 2 * 1024 * 1024;

/** The read model with the explorer aggregates (api/chainView.ts). */
export type StatsModel = ReadModel & {
  activity(now: number): Omit<StatsView, 'height' | 'accounts' | 'transactions' | 'stake' | 'supply'>;
};

/** The authentication part of a transaction, shown only on `/tx/:id`. */
const authOf = (tx: SignedTx) =>
  tx.envelope === 'eth' ? { raw: tx.raw } : { publicKeys: tx.publicKeys, signatures: tx.signatures };

const WEI_PER_BASE = 10n ** 12n;

/**
 * Read queries over the published head, the chain store and the mempool actor. It never
 * writes and never holds a lock: every read is against an immutable committed root.
 */
export class ChainReader implements ChainQueries {
  private readonly blocksCache: BlockCache;

  /** Token, NFT and name reads (node-local asset indexes and asset state). */
  readonly assets: AssetReader;
  /** Validators, governance and treasury. */
  readonly governance: GovernanceReader;
  /** AI tasks and oracles. */
  readonly ai: AiReader;
  readonly bridge: BridgeReader;
  /** What nodes joining by state sync fetch. */
  readonly snapshots: SnapshotReader;

  constructor(
    private readonly d: {
      kv: KvStore;
      store: ChainStore;
      view: StatsModel;
      mempool: ActorRef<MempoolMsg, MempoolReplies>;
      slotMs?: number;
      /** The clock the governance view's slot producer of now reads; default Date.now. */
      now?: () => number;
      /**
       * The pool's read side, read in place: a read never waits in the mempool actor's mailbox
       * behind admissions (one JS thread: the answer is consistent at the call). Without it,
       * the actor is asked.
       */
      pending?: Pick<TxPool, 'nextNonce'>;
      /** Decoded blocks shared with the node's other readers (the sentinel); one of its own without it. */
      blocks?: BlockCache;
      /** The node's lifecycle actors (transactions, blocks): `/tx/:id` and `/blocks/:ref` read the states they hold. */
      lifecycles: Pick<LifecycleActors, 'txs' | 'blocks'>;
      /** `?for=` answers: the machines' view actors in a node; computed at the head without them. */
      actions?: MachineActions;
      /** Every Nth final block's state is served to joining nodes (--snapshot-interval; default none). */
      snapshotInterval?: number;
    },
  ) {
    this.assets = new AssetReader({ kv: d.kv, view: d.view });
    const actions = d.actions ?? actionsAtHead(d);
    this.governance = new GovernanceReader({
      kv: d.kv,
      store: d.store,
      view: d.view,
      slotMs: d.slotMs,
      now: d.now,
      actions,
    });
    this.ai = new AiReader({
      kv: d.kv,
      store: d.store,
      view: d.view,
      addressTxs: (a, limit) => this.addressTxs(a, limit),
      actions,
    });
    this.bridge = new BridgeReader({ kv: d.kv, store: d.store, view: d.view, actions });
    this.snapshots = new SnapshotReader({ kv: d.kv, store: d.store, view: d.view, interval: d.snapshotInterval ?? 0 });
    this.blocksCache = d.blocks ?? new BlockCache(d.store);
  }

  /** A transaction's lifecycle, as its actor holds it. */
  private txLifecycle(id: Hex): Promise<TxLifecycleSnapshot | undefined> {
    return this.d.lifecycles.txs.ask({ type: 'get', id });
  }

  /** A block's lifecycle, as its actor holds it (also for one the chain does not hold: rejected, undone, orphaned). */
  blockLifecycle(hash: Hex): Promise<BlockLifecycleView | undefined> {
    return this.d.lifecycles.blocks.ask({ type: 'get', hash });
  }

  /** A block from the shared cache; none below the history kept (the cache may still hold a pruned one). */
  private async cachedBlock(height: number): Promise<Block | undefined> {
    return this.historyNote(height) ? undefined : this.blocksCache.get(height);
  }

  get head() {
    return this.d.view.head;
  }

  stateAt(root: Hex = this.d.view.head.stateRoot): Promise<StateTrie> {
    return StateTrie.open(this.d.kv, root);
  }

  /** Deployed VM code at a state root ('0x' for a plain or absent account). */
  async code(addr: Address, root?: Hex): Promise<Hex> {
    const state = await this.stateAt(root);
    const a = await state.getAccount(addr);
    if (!a?.codeHash) return '0x';
    return (await state.getRecord<Hex>(codeKey(a.codeHash))) ?? '0x';
  }

  async contractMetadata(addr: Address): Promise<ContractMetadata | undefined> {
    return (await this.d.store.contractMetadata(addr)) as ContractMetadata | undefined;
  }

  async accountState(addr: Address): Promise<AccountState | undefined> {
    return (await this.stateAt()).getAccount(addr);
  }

  /** Per head: an account is read from the trie once per block however often it is polled. */
  private readonly headMemo = new HeadMemo(() => this.d.view.head);
  /** GET /address/:end's text parts, keyed by the address alone (no key built per request). */
  private readonly accountJsonMemo = new HeadMemo(() => this.d.view.head);

  /**
   * The account at the head with its non-zero FT20 holdings. An address that only ever
   * received tokens (no native account yet) shows as a fresh account with its tokens.
   */
  async account(addr: Address): Promise<AccountView | undefined> {
    const base = await this.atHead(addr);
    return base && { ...base, nextNonce: await this.nextNonce(addr, base.nonce) };
  }

  private atHead(addr: Address): MaybePromise<AccountView | undefined> {
    return this.headMemo.get(`account:${addr}`, () => this.accountAtHead(addr));
  }

  /** The next nonce counts this node's pending transactions: it moves between blocks. */
  private nextNonce(addr: Address, accountNonce: number): number | Promise<number> {
    return this.d.pending
      ? this.d.pending.nextNonce(addr, accountNonce)
      : this.d.mempool.ask({ type: 'nextNonce', address: addr, accountNonce });
  }

  /**
   * GET /address/:end as sent: the head's part serialized once per head, the next nonce (which
   * moves between blocks) spliced in per request; the same bytes as JSON.stringify(account()).
   * Synchronous once the head's part is built and the pool answers in place.
   */
  accountJson(addr: Address): MaybePromise<JsonText | undefined> {
    const parts = this.accountJsonMemo.get(addr, async () => {
      const base = await this.atHead(addr);
      if (!base) return undefined;
      const text = JSON.stringify(base);
      const mark = `"nextNonce":${base.nextNonce}`; // the one top-level key named so, before `tokens`
      const at = text.indexOf(mark);
      const head = text.slice(0, at + '"nextNonce":'.length);
      const tail = text.slice(at + mark.length);
      return { nonce: base.nonce, head, tail, last: { nextNonce: base.nextNonce, json: JsonText.shared(text) } };
    });
    // The answer for the latest next nonce is kept, encoded: polls between blocks cost no concatenation or encoding.
    return andThen(
      parts,
      (p) =>
        p &&
        andThen(this.nextNonce(addr, p.nonce), (n) => {
          if (p.last.nextNonce !== n) p.last = { nextNonce: n, json: JsonText.shared(p.head + n + p.tail) };
          return p.last.json;
        }),
    );
  }

  private async accountAtHead(addr: Address): Promise<AccountView | undefined> {
    const head = this.d.view.head;
    const state = await this.stateAt(head.stateRoot);
    const found = await state.getAccount(addr);
    const tokens = await this.assets.accountTokens(addr);
    if (!found && tokens.length === 0) return undefined;
    const a = found ?? newAccount(head.height);
    const v = viewAccount(a, head.height);
    return {
      address: addr,
      native: toNative(addr),
      balance: v.balance.toString(),
      staked: v.staked.toString(),
      nonce: v.nonce,
      nextNonce: v.nonce,
      energy: Number(v.energy),
      maxEnergy: Number(maxEnergy(v)),
      feeExempt: isFeeExempt(v, v.staked > 0n ? (await loadParams(state)).FEE_EXEMPT_STAKE : 0n),
      isValidator: v.isValidator,
      delegatedOut: v.delegatedOut.toString(),
      delegatedIn: v.delegatedIn.toString(),
      permissioned: v.permissioned,
      tokens,
    };
  }

  private network: Network | undefined;

  async status(): Promise<StatusView> {
    const head = this.d.view.head;
    const state = await this.stateAt(head.stateRoot);
    const supply = await loadSupply(state);
    const params = await loadParams(state);
    const treasury = (await state.getAccount(TREASURY_ADDRESS))?.balance ?? 0n;
    this.network ??= await this.d.store.network();
    return {
      chainId: this.network.chainId,
      genesisHash: this.network.genesisHash,
      height: head.height,
      finalizedHeight: head.finalizedHeight,
      justifiedHeight: head.justifiedHeight ?? head.finalizedHeight,
      headHash: head.hash,
      stateRoot: head.stateRoot,
      timestamp: head.timestamp,
      supply: supply.supply.toString(),
      minted: supply.minted.toString(),
      burned: supply.burned.toString(),
      staked: supply.staked.toString(),
      treasury: treasury.toString(),
      treasuryAddress: TREASURY_ADDRESS,
      validators: this.d.view.validators.map((a) => ({ address: a, native: toNative(a) })),
      blockReward: params.BLOCK_REWARD.toString(),
      treasuryReward: params.TREASURY_REWARD.toString(),
      finalityBehind: finalityBehind(await getSchedule(state), head.height),
      historyFrom: this.d.view.historyFrom,
      stateFrom: this.d.view.stateFrom,
    };
  }

  /** The lowest height whose history the store keeps: 0 for an archive. */
  get historyFrom(): number {
    return this.d.view.historyFrom;
  }

  /** The lowest height whose state the store keeps: 0 for an archive. */
  get stateFrom(): number {
    return this.d.view.stateFrom;
  }

  historyNote(height?: number): string | undefined {
    const from = this.d.view.historyFrom;
    if (from === 0 || (height !== undefined && (height === 0 || height >= from))) return undefined;
    return `this node keeps history from height ${from}`;
  }

  stateNote(height: number): string | undefined {
    const from = this.d.view.stateFrom;
    return height < from ? `this node keeps state from height ${from}` : undefined;
  }

  /** Height or 0x hash → block height, if the block exists. */
  async resolveRef(ref: string): Promise<number | undefined> {
    if (/^\d{1,15}$/.test(ref)) {
      const h = Number(ref);
      return h <= this.d.view.head.height ? h : undefined;
    }
    if (/^0x[0-9a-fA-F]{64}$/.test(ref)) return this.d.store.heightOfHash(ref.toLowerCase() as Hex);
    return undefined;
  }

  /** A block (shared and cached: callers must not mutate it) and its encoded size. */
  async blockWithSize(height: number): Promise<{ block: Block; size: number } | undefined> {
    return this.historyNote(height) ? undefined : this.blocksCache.withSize(height);
  }

  /** The block record of /blocks/:ref: header fields, size, finality and its transactions in summary. */
  async blockView(height: number): Promise<BlockView | undefined> {
    const b = await this.blockWithSize(height);
    if (!b) return undefined;
    const { header } = b.block;
    const finalized = header.height <= this.d.view.head.finalizedHeight;
    return {
      ...header,
      producerNative: toNative(header.producer),
      size: b.size,
      finalized,
      lifecycle: (await this.blockLifecycle(header.hash)) ?? {
        state: finalized ? 'finalized' : 'committed',
        height: header.height,
      },
      txs: b.block.txs.map((tx, i) => this.summarize(tx, { block: b.block, index: i })),
    };
  }

  summaryView(s: BlockSummary): BlockSummaryView {
    return { ...s, producerNative: toNative(s.producer), finalized: s.height <= this.d.view.head.finalizedHeight };
  }

  async blocks(from: number, limit: number): Promise<BlockSummaryView[]> {
    return (await this.d.store.summariesDesc(Math.min(from, this.d.view.head.height), limit)).map((s) =>
      this.summaryView(s),
    );
  }

  /**
   * Contiguous full blocks from `from` upwards, bounded by count and bytes: CHAIN_JSON_PAGE_BYTES, an eighth of the
   * binary page's bound, as each block is decoded and serialized for the client (~17 ms per MB on this machine).
   */
  async chainJson(from: number, limit: number, capped?: string, maxBytes = CHAIN_JSON_PAGE_BYTES): Promise<ChainText> {
    // `height` and `hash` at the top level as /blocks/:ref has them (and `header` as stored, for peers that import it).
    const { items, next } = await this.chainItems(from, limit, maxBytes, (h, s) =>
      this.d.store.chainItemJson(h, s.hash, s.size),
    );
    const note = capped === undefined ? '' : `,"capped":${JSON.stringify(capped)}`;
    const text = `{"from":${from},"limit":${limit}${note},"blocks":[${items.join(',')}],"next":${next}}`;
    return { text, blocks: items.length };
  }

  /** The same page in binary, for a peer that asks for it (chain/chainPage.ts): the same blocks and `next`. */
  async chainBinary(from: number, limit: number, maxBytes = CHAIN_PAGE_BYTES): Promise<ChainBytes> {
    const { page, blocks } = await this.d.store.binaryPage(from, this.d.view.head.height, limit, maxBytes);
    return { bytes: page, blocks };
  }

  /** The items of a /chain page from `from` to the head (ChainStore.pageItems). */
  private chainItems<T>(
    from: number,
    limit: number,
    maxBytes: number,
    item: (height: number, summary: BlockSummary) => Promise<T | undefined>,
  ): Promise<{ items: T[]; next: number | null }> {
    return this.d.store.pageItems(from, this.d.view.head.height, limit, maxBytes, item);
  }

  /** The JSON page as objects (what chainJson serves as text). */
  async chain(from: number, limit: number, maxBytes = CHAIN_JSON_PAGE_BYTES): Promise<ChainPage> {
    const { items, next } = await this.chainItems(from, limit, maxBytes, async (h) => {
      const b = await this.blockWithSize(h);
      return b && { height: b.block.header.height, hash: b.block.header.hash, ...b.block, size: b.size };
    });
    return { from, limit, blocks: items, next };
  }

  /** The status word of a transaction in a block: final once the finalized height reaches it. */
  private statusAt(height: number): TxStatus {
    return height <= this.d.view.head.finalizedHeight ? 'finalized' : 'included';
  }

  summarize(tx: SignedTx, at?: { block: Block; index: number }): TxSummary {
    const {
      publicKeys: _pk,
      signatures: _sig,
      raw: _raw,
      accessList: _al,
      ...fields
    } = tx as SignedTx & Partial<HybridTx> & { raw?: Hex; accessList?: unknown };
    const base = { ...fields, fromNative: toNative(tx.from), toNative: tx.to ? toNative(tx.to) : null };
    if (!at) return { ...base, status: 'pending' };
    const h = at.block.header;
    return {
      ...base,
      status: this.statusAt(h.height),
      blockHeight: h.height,
      blockHash: h.hash,
      index: at.index,
      result: at.block.results[at.index],
    };
  }

  /** GET /tx/:id — from a block, else from the mempool (pending or recently dropped). */
  async tx(id: Hex): Promise<TxRecord | undefined> {
    const loc = await this.d.store.txLocation(id);
    // A block is written before its head is published: until then its transactions read as they
    // were, so that a client told "in block h" finds block h's state at the head it reads next.
    if (loc && loc.height <= this.d.view.head.height) {
      const block = await this.cachedBlock(loc.height);
      const tx = block?.txs[loc.index];
      const life = await this.txLifecycle(id);
      if (block && tx && life) {
        const lifecycle = lifecycleState(life);
        return {
          ...this.summarize(tx, { block, index: loc.index }),
          status: STATUS_OF[lifecycle],
          lifecycle,
          ...authOf(tx),
        };
      }
    }
    const m = await this.d.mempool.ask({ type: 'lookup', id });
    const body = m ?? (await this.undoneRecord(id));
    const life = body && (await this.txLifecycle(id));
    if (!body || !life) return undefined;
    const lifecycle = lifecycleState(life);
    const { reason, code } = life.context;
    return {
      ...this.summarize(body.tx),
      status: STATUS_OF[lifecycle],
      lifecycle,
      ...(m ? { receivedAt: m.receivedAt } : {}),
      ...(reason ? { reason } : {}),
      ...(code ? { code } : {}),
      ...authOf(body.tx),
    };
  }

  /** A transaction whose block was undone (reorganization) and that is in no block or pool now. */
  private async undoneRecord(id: Hex): Promise<{ tx: SignedTx } | undefined> {
    const tx = await this.d.store.undoneTx(id);
    return tx && { tx };
  }

  /** Pending transactions (oldest first, up to `limit`) and the pool's whole size. */
  async mempool(limit: number): Promise<MempoolView> {
    const { size, entries } = await this.d.mempool.ask({ type: 'list', limit });
    return { count: size, txs: entries.map((e) => ({ ...this.summarize(e.tx), receivedAt: e.receivedAt })) };
  }

  private async txsAt(locs: { height: number; index: number }[]): Promise<TxSummary[]> {
    const cache = new Map<number, Block | undefined>();
    const out: TxSummary[] = [];
    for (const l of locs) {
      if (!cache.has(l.height)) cache.set(l.height, await this.cachedBlock(l.height));
      const block = cache.get(l.height);
      const tx = block?.txs[l.index];
      if (block && tx) out.push(this.summarize(tx, { block, index: l.index }));
    }
    return out;
  }

  /**
   * Newest first; `before` is the height of the last item of the previous page (docs/API.md "Pagination"). As the
   * cursor is a height, a page that would end inside a block is completed with the rest of
   * that block (at most MAX_TXS_PER_BLOCK more), so the next page loses nothing.
   */
  async addressTxs(addr: Address, limit: number, before?: number): Promise<AddressTxsPage> {
    const locs = await this.d.store.addressFeed(addr, limit, before);
    const last = locs[locs.length - 1];
    if (locs.length === limit && last) {
      const rest = await this.d.store.addressFeed(addr, MAX_TXS_PER_BLOCK, last.height + 1);
      locs.push(...rest.filter((l) => l.height === last.height && l.index < last.index));
    }
    const txs = await this.txsAt(locs);
    return { txs, nextBefore: locs.length >= limit && last ? last.height : null };
  }

  /** Newest transactions across the chain. */
  async recentTxs(limit: number): Promise<TxSummary[]> {
    const out: TxSummary[] = [];
    let from = this.d.view.head.height;
    while (out.length < limit && from >= 0) {
      const page = await this.d.store.summariesDesc(from, 256);
      if (page.length === 0) break;
      for (const s of page) {
        if (s.txCount === 0) continue;
        const block = await this.cachedBlock(s.height);
        if (!block) continue;
        for (let i = block.txs.length - 1; i >= 0 && out.length < limit; i--)
          out.push(this.summarize(block.txs[i], { block, index: i }));
        if (out.length >= limit) break;
      }
      from = page[page.length - 1].height - 1;
    }
    return out;
  }

  /** Aggregates over the address's newest `window` transactions. */
  async analysis(addr: Address, window = 10_000): Promise<AnalysisView> {
    const locs = await this.d.store.addressFeed(addr, window);
    const txs = await this.txsAt(locs);
    let sent = 0n;
    let received = 0n;
    let fees = 0n;
    const byType: Record<string, number> = {};
    const counterparties = new Map<Address, number>();
    for (const t of txs) {
      byType[t.type] = (byType[t.type] ?? 0) + 1;
      const ok = t.result?.status === 'success';
      if (t.from === addr) {
        if (ok) sent += BigInt(t.amount);
        fees += BigInt(t.result?.burned ?? '0');
        if (t.to) counterparties.set(t.to, (counterparties.get(t.to) ?? 0) + 1);
      }
      if (t.to === addr && t.from !== addr) {
        if (ok) received += BigInt(t.amount);
        counterparties.set(t.from, (counterparties.get(t.from) ?? 0) + 1);
      }
    }
    return {
      address: addr,
      native: toNative(addr),
      window,
      counted: txs.length,
      counts: {
        total: txs.length,
        sent: txs.filter((t) => t.from === addr).length,
        received: txs.filter((t) => t.to === addr && t.from !== addr).length,
        failed: txs.filter((t) => t.result?.status === 'failed').length,
      },
      sent: sent.toString(),
      received: received.toString(),
      feesBurned: fees.toString(),
      byType,
      counterparties: [...counterparties]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 20)
        .map(([address, count]) => ({ address, native: toNative(address), count })),
      firstSeenHeight: locs.length ? locs[locs.length - 1].height : null,
      lastSeenHeight: locs.length ? locs[0].height : null,
    };
  }

  /** Internal transfers (value moved inside VM execution), oldest first from height `from`. */
  async internal(addr: Address | undefined, from: number, limit: number): Promise<InternalTransferView[]> {
    const list = await this.d.store.internal(addr, from, limit);
    return list.map((t) => ({
      txId: t.txId,
      kind: t.kind,
      from: t.from,
      to: t.to,
      fromNative: toNative(t.from),
      toNative: toNative(t.to),
      amount: (BigInt(t.amountWei) / WEI_PER_BASE).toString(),
      amountWei: t.amountWei,
      blockHeight: t.blockHeight,
    }));
  }

  /** Newest VM logs first. */
  async recentLogs(limit: number): Promise<LogView[]> {
    return (await this.d.store.recentLogs(limit)).map((l) => ({ ...l, addressNative: toNative(l.address) }));
  }

  async proof(addr: Address, height?: number): Promise<AccountProofView | undefined> {
    const h = height ?? this.d.view.head.height;
    const summary = await this.d.store.summary(h);
    const block = summary ? await this.cachedBlock(h) : undefined;
    if (!block) return undefined;
    const state = await this.stateAt(block.header.stateRoot);
    const a = await state.getAccount(addr);
    return {
      address: addr,
      native: toNative(addr),
      height: h,
      blockHash: block.header.hash,
      stateRoot: block.header.stateRoot,
      account: a ? encodeAccountJson(a) : null,
      proof: await state.proveAccount(addr),
    };
  }

  /** Prefix search over addresses, blocks (height or hash), transactions, tokens (symbol, name) and names. */
  async search(q: string, limit = 10): Promise<SearchHit[]> {
    const results: SearchHit[] = [];
    const s = q.trim();
    const addr = parseAddress(s);
    if (addr) results.push({ kind: 'address', id: addr, native: toNative(addr) });
    if (/^\d{1,15}$/.test(s) && Number(s) <= this.d.view.head.height)
      results.push({ kind: 'block', id: s, height: Number(s) });
    const hex = /^0x([0-9a-fA-F]{1,64})$/.exec(s)?.[1]?.toLowerCase();
    if (hex) {
      if (!addr && hex.length <= 40) {
        for (const a of await this.d.store.scanHexPrefix('firstSeen', hex, limit))
          results.push({ kind: 'address', id: a, native: toNative(a) });
      }
      for (const h of await this.d.store.scanHexPrefix('blockHash', hex, limit)) {
        results.push({ kind: 'block', id: h, height: await this.d.store.heightOfHash(h) });
      }
      for (const t of await this.d.store.scanHexPrefix('txLocation', hex, limit))
        results.push({ kind: 'transaction', id: t });
    }
    if (results.length < limit) results.push(...(await this.assets.search(s, limit - results.length)));
    return results.slice(0, limit);
  }

  async stats(now: number): Promise<StatsView> {
    const head = this.d.view.head;
    const supply = await loadSupply(await this.stateAt(head.stateRoot));
    const counters = await this.d.store.counters();
    return {
      height: head.height,
      accounts: counters.accounts,
      transactions: counters.txs,
      stake: supply.staked.toString(),
      supply: supply.supply.toString(),
      ...this.d.view.activity(now),
    };
  }
}

function encodeAccountJson(a: AccountState): ProvedAccount {
  return {
    balance: a.balance.toString(),
    staked: a.staked.toString(),
    nonce: a.nonce,
    energy: a.energy.toString(),
    energyHeight: a.energyHeight,
    feeExempt: a.feeExempt,
    isValidator: a.isValidator,
    mldsaKeyHash: a.mldsaKeyHash,
    ...(a.codeHash ? { codeHash: a.codeHash } : {}),
    ...(a.weiRemainder ? { weiRemainder: a.weiRemainder.toString() } : {}),
    ...(a.delegatedOut ? { delegatedOut: a.delegatedOut.toString() } : {}),
    ...(a.delegatedIn ? { delegatedIn: a.delegatedIn.toString() } : {}),
    ...(a.permissioned ? { permissioned: true as const } : {}),
  };
}
