/**
 * A bridge relayer built on the SDK, run by a committee member: it follows outbound transfers
 * (BRIDGE_OUT) with the transfer feed's cursor, final ones only (a lock that a reorganization
 * could still undo is never paid), and pays on its target chain each one the node offers it
 * BRIDGE_SETTLE for (`GET /bridge/transfers/:id?for=<me>` → `actions`: the transfer machine's
 * own rules and the settle's check of the sender decide, the relayer restates neither), then
 * marks it PAID with BRIDGE_SETTLE naming the payout's transaction there. It survives its own
 * restart (the cursor, the transfers waiting and every payout made are on disk, the payout
 * written before the settle goes out, so a restarted relayer never pays twice) and honours
 * 429 Retry-After and 503.
 *
 *   npx tsx examples/relayer.ts --node http://127.0.0.1:6070 --key member.json --state relayer-state.json \
 *     [--fallback-blocks 20]
 *
 * Every member may run one, and the members take turns so that a transfer is paid once: the
 * transfer id modulo the committee's size names the member whose turn it is (members sorted
 * by address, as GET /bridge lists them) and pays at once; the next one steps in if the
 * transfer is still LOCKED `fallbackBlocks` blocks after it saw the lock, the one after that
 * `fallbackBlocks` later, and so on — a member that is down delays its transfers, it does
 * not strand them. (Counted from when each relayer saw the lock, not from the lock itself:
 * relayers restarted together after an outage still give the first member its head start.)
 * A relayer whose keys are not in the committee pays nothing (it could not settle).
 *
 * `--key` is a JSON file {"secret": "<64 hex>"} of a committee member. `payout` is where a real
 * chain client plugs in: this one only derives a stand-in transaction id from the transfer id
 * (there is no other chain on this machine); replace it with a wallet that pays
 * `transfer.amount` of `transfer.asset` to `transfer.recipient` on `transfer.chain` and
 * returns the payout's transaction id. It must be idempotent per transfer id (e.g. the
 * transfer id as the payment's reference, checked before paying): a relayer that crashes
 * inside `payout` calls it again for the same transfer after its restart, and a member
 * stepping in for a slow one may pay a transfer the slow one is paying at that moment.
 */
import { createHash } from 'node:crypto';
import { CairnClient, type BridgeTransferView, type HybridKeys } from '../src/sdk';
import type { Hex } from '../src/primitives/hex';
import { arg, keysFromFile, loadState, retryingLogged, saveState, sendIncluded, sleep } from './support';

/** The stand-in payout: a deterministic id for the transfer's payout transaction on its target chain. */
export const standInPayout = async (t: BridgeTransferView): Promise<string> =>
  `0x${createHash('sha256').update(`payout:${t.chain}:${t.id}`).digest('hex')}`;

/** Blocks the member whose turn it is has before the next member steps in. */
export const DEFAULT_FALLBACK_BLOCKS = 20;

/**
 * The height from which `me` (an index into the committee's members, sorted by address) pays
 * the transfer `id` it saw LOCKED at height `seenAt`: the transfer id modulo the committee's
 * size names the first member, who pays at once; each next one (by index, wrapping) waits
 * `fallbackBlocks` more.
 */
export function turnOf(id: string, seenAt: number, me: number, members: number, fallbackBlocks: number): number {
  const first = Number(BigInt(id) % BigInt(members));
  return seenAt + ((me - first + members) % members) * fallbackBlocks;
}

interface RelayerState {
  cursor: number | null;
  /**
   * Transfers that moved on the feed, not paid yet (waiting for this member's turn): id → the height it was first seen
   * at.
   */
  waiting: Record<string, number>;
  /** Payouts made, by transfer id: the target transaction to settle with (kept until PAID). */
  paid: Record<string, string>;
  settled: string[];
}

export interface RelayerOptions {
  node: string;
  keys: HybridKeys;
  stateFile: string;
  payout?: (t: BridgeTransferView) => Promise<string>;
  /** Default DEFAULT_FALLBACK_BLOCKS; 0: pay every transfer at once, whoever's turn it is. */
  fallbackBlocks?: number;
  pollMs?: number;
  log?: (msg: string) => void;
}

export class Relayer {
  private readonly client: CairnClient;
  private state: RelayerState;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly log: (msg: string) => void;
  private notMember: number | undefined;

  constructor(private readonly o: RelayerOptions) {
    this.client = new CairnClient(o.node);
    const fresh: RelayerState = { cursor: null, waiting: {}, paid: {}, settled: [] };
    this.state = { ...fresh, ...loadState<Partial<RelayerState>>(o.stateFile, fresh) };
    this.log = o.log ?? ((m) => console.error(`[relayer ${o.keys.address.slice(0, 10)}] ${m}`));
  }

  /** Transfers settled by this relayer, oldest first. */
  get settled(): readonly string[] {
    return this.state.settled;
  }

  /** Transfers seen on the feed, waiting for this member's turn (or for it to be a member). */
  get waiting(): readonly string[] {
    return Object.keys(this.state.waiting);
  }

  private save(): void {
    saveState(this.o.stateFile, this.state);
  }

  /** The transfer as the node sees it, if it offers this member BRIDGE_SETTLE now (its `actions`). */
  private async settleable(id: string): Promise<BridgeTransferView | undefined> {
    const t = await this.client.bridgeTransfer(id, { for: this.o.keys.address });
    return t?.actions?.some((a) => a.type === 'BRIDGE_SETTLE' && a.from <= (t.actionsAt ?? 0) + 1) ? t : undefined;
  }

  /**
   * One round: the outbound transfers that moved (and are final) since the cursor join the
   * waiting list; the waiting ones whose turn came are paid and settled if the node offers
   * this member BRIDGE_SETTLE for them (else forgotten: settled by someone, or gone);
   * payouts not yet settled are settled again while it still does.
   */
  async poll(): Promise<void> {
    const { committee } = await this.client.bridge();
    // Final heights only: a lock a reorganization could still undo is never paid out.
    const page = await this.client.bridgeTransfers({
      direction: 'out',
      since: this.state.cursor ?? 0,
      final: true,
      limit: 100,
    });
    for (const t of page.transfers) if (this.state.paid[t.id] === undefined) this.state.waiting[t.id] ??= page.height;
    this.state.cursor = page.cursor;
    this.save();

    // Its place in the committee orders the turns (a relayer's policy; whether it may settle is the node's answer).
    const me = committee?.members.findIndex((m) => m.address === this.o.keys.address) ?? -1;
    if (me < 0) {
      // Paying a transfer it cannot settle would pay it twice (a member pays it too): wait to be one.
      if (this.notMember !== committee?.epoch)
        this.log(
          `not a member of the bridge ` +
            `committee${committee ? ` (epoch ${committee.epoch})` : ' (there is none yet)'}: paying nothing`,
        );
      this.notMember = committee?.epoch;
    } else {
      this.notMember = undefined;
      const n = committee!.members.length;
      for (const [id, seenAt] of Object.entries(this.state.waiting)) {
        if (page.height < turnOf(id, seenAt, me, n, this.o.fallbackBlocks ?? DEFAULT_FALLBACK_BLOCKS)) continue;
        const t = await this.settleable(id);
        if (t) await this.pay(t);
        else {
          // not to be settled (by this member): settled by another meanwhile, or gone with a reorganization
          this.forget(id);
        }
      }
    }
    for (const id of Object.keys(this.state.paid)) {
      const t = await this.settleable(id);
      if (t) await this.settle(t, this.state.paid[id]);
      else this.forget(id); // settled, by us (an answer lost) or by another member
    }
    this.save();
  }

  private forget(id: string): void {
    delete this.state.waiting[id];
    delete this.state.paid[id];
  }

  private async pay(t: BridgeTransferView): Promise<void> {
    const targetTx = await (this.o.payout ?? standInPayout)(t);
    this.state.paid[t.id] = targetTx;
    delete this.state.waiting[t.id];
    this.save(); // before settling: a restart settles this payout, never pays again
    this.log(`paid ${t.amount} ${t.asset} to ${t.recipient} on ${t.chain}: ${targetTx}`);
  }

  private async settle(t: BridgeTransferView, targetTx: string): Promise<void> {
    // A refusal (another member settled first) is logged: the next round sees the transfer PAID and forgets it.
    if (
      await sendIncluded(
        this.client,
        this.o.keys,
        { type: 'BRIDGE_SETTLE', transferId: t.id as Hex, targetTx },
        `settle ${t.id.slice(0, 10)}`,
        this.log,
      )
    ) {
      delete this.state.paid[t.id];
      this.state.settled.push(t.id);
      this.save();
    }
  }

  /** Polls until stop(), waiting out 429 (Retry-After) and 503 (syncing) answers. */
  async run(): Promise<void> {
    try {
      while (!this.stopped) {
        await retryingLogged(() => this.poll(), this.log, this.abort.signal);
        await sleep(this.o.pollMs ?? 500);
      }
    } catch (e) {
      if (!this.stopped) throw e; // stopped while waiting out an error: a clean end
    }
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }
}

if (process.argv[1]?.endsWith('relayer.ts')) {
  const keyFile = arg('key');
  if (!keyFile || process.argv.includes('--help')) {
    console.error(
      'usage: npx tsx examples/relayer.ts --key <member key.json> [--node <url>] [--state <file>] ' +
        '[--fallback-blocks <n>]',
    );
    process.exit(process.argv.includes('--help') ? 0 : 2);
  }
  const fallback = arg('fallback-blocks');
  if (fallback !== undefined && !/^\d{1,9}$/.test(fallback)) {
    console.error(`--fallback-blocks must be a number of blocks, got "${fallback}"`);
    process.exit(2);
  }
  const relayer = new Relayer({
    node: arg('node') ?? process.env.CAIRN_NODE ?? 'http://127.0.0.1:6070',
    keys: keysFromFile(keyFile),
    stateFile: arg('state') ?? 'relayer-state.json',
    ...(fallback !== undefined ? { fallbackBlocks: Number(fallback) } : {}),
  });
  process.on('SIGINT', () => relayer.stop());
  process.on('SIGTERM', () => relayer.stop());
  relayer.run().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
