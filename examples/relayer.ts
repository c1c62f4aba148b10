/**
 * A bridge relayer built on the SDK, run by a committee member: it follows outbound transfers
 * (BRIDGE_OUT) with the transfer feed's cursor, final ones only (a lock that a reorganization
 * could still undo is never paid), pays each LOCKED one on its target chain, and
 * marks it PAID with BRIDGE_SETTLE naming the payout's transaction there. It survives its own
 * restart (the cursor and every payout made are on disk, written before the settle goes out,
 * so a restarted relayer never pays twice) and honours 429 Retry-After and 503.
 *
 *   npx tsx examples/relayer.ts --node http://127.0.0.1:6070 --key member.json --state relayer-state.json
 *
 * `--key` is a JSON file {"secret": "<64 hex>"} of a committee member. `payout` is where a real
 * chain client plugs in: this one only derives a stand-in transaction id from the transfer id
 * (there is no other chain on this machine); replace it with a wallet that pays
 * `transfer.amount` of `transfer.asset` to `transfer.recipient` on `transfer.chain` and
 * returns the payout's transaction id. It must be idempotent per transfer id (e.g. the
 * transfer id as the payment's reference, checked before paying): a relayer that crashes
 * inside `payout` calls it again for the same transfer after its restart.
 */
import { createHash } from 'node:crypto';
import { CairnClient, type HybridKeys } from '../src/sdk';
import type { Hex } from '../src/primitives/hex';
import type { BridgeTransferView } from '../src/views';
import { arg, keysFromFile, loadState, retryingLogged, saveState, sendIncluded, sleep } from './support';

/** The stand-in payout: a deterministic id for the transfer's payout transaction on its target chain. */
export const standInPayout = async (t: BridgeTransferView): Promise<string> => `0x${createHash('sha256').update(`payout:${t.chain}:${t.id}`).digest('hex')}`;

interface RelayerState {
  cursor: number | null;
  /** Payouts made, by transfer id: the target transaction to settle with (kept until PAID). */
  paid: Record<string, string>;
  settled: string[];
}

export interface RelayerOptions {
  node: string;
  keys: HybridKeys;
  stateFile: string;
  payout?: (t: BridgeTransferView) => Promise<string>;
  pollMs?: number;
  log?: (msg: string) => void;
}

export class Relayer {
  private readonly client: CairnClient;
  private state: RelayerState;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly log: (msg: string) => void;

  constructor(private readonly o: RelayerOptions) {
    this.client = new CairnClient(o.node);
    this.state = loadState<RelayerState>(o.stateFile, { cursor: null, paid: {}, settled: [] });
    this.log = o.log ?? ((m) => console.error(`[relayer ${o.keys.address.slice(0, 10)}] ${m}`));
  }

  /** Transfers settled by this relayer, oldest first. */
  get settled(): readonly string[] {
    return this.state.settled;
  }

  /** One round: the outbound transfers that moved (and are final) since the cursor, then every payout not yet settled. */
  async poll(): Promise<void> {
    // Final heights only: a lock a reorganization could still undo is never paid out.
    const page = await this.client.bridgeTransfers({ direction: 'out', since: this.state.cursor ?? 0, final: true, limit: 100 });
    for (const t of page.transfers) await this.handle(t);
    for (const id of Object.keys(this.state.paid)) {
      const t = await this.client.bridgeTransfer(id);
      if (t) await this.handle(t);
    }
    this.state.cursor = page.cursor;
    saveState(this.o.stateFile, this.state);
  }

  private async handle(t: BridgeTransferView): Promise<void> {
    if (t.direction !== 'out') return;
    if (t.status !== 'LOCKED') {
      if (this.state.paid[t.id]) delete this.state.paid[t.id]; // settled (by us or another member)
      return;
    }
    let targetTx = this.state.paid[t.id];
    if (!targetTx) {
      targetTx = await (this.o.payout ?? standInPayout)(t);
      this.state.paid[t.id] = targetTx;
      saveState(this.o.stateFile, this.state); // before settling: a restart settles this payout, never pays again
      this.log(`paid ${t.amount} ${t.asset} to ${t.recipient} on ${t.chain}: ${targetTx}`);
    }
    if (await sendIncluded(this.client, this.o.keys, { type: 'BRIDGE_SETTLE', transferId: t.id as Hex, targetTx }, `settle ${t.id.slice(0, 10)}`, this.log)) {
      delete this.state.paid[t.id];
      this.state.settled.push(t.id);
      saveState(this.o.stateFile, this.state);
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
    console.error('usage: npx tsx examples/relayer.ts --key <member key.json> [--node <url>] [--state <file>]');
    process.exit(keyFile ? 0 : 2);
  }
  const relayer = new Relayer({ node: arg('node') ?? process.env.CAIRN_NODE ?? 'http://127.0.0.1:6070', keys: keysFromFile(keyFile), stateFile: arg('state') ?? 'relayer-state.json' });
  process.on('SIGINT', () => relayer.stop());
  process.on('SIGTERM', () => relayer.stop());
  relayer.run().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
