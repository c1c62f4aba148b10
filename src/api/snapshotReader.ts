import { toHex, type Hex } from '../primitives/hex';
import { getMany, type KvStore } from '../state/kv';
import { nodeKey } from '../state/trieNodes';
import type { ChainStore } from '../storage/chainStore';
import { servedSnapshots } from '../storage/snapshots';
import type { SnapshotsView } from '../views';
import type { ReadModel } from './ports';

/**
 * What a node serves to nodes joining by state sync: its snapshots' signed headers, and state
 * nodes by hash. Serving a node by hash trusts nothing and tells nothing secret: the state is
 * public, and the asker checks each node's keccak.
 */
export class SnapshotReader {
  constructor(
    private readonly d: {
      kv: KvStore;
      store: ChainStore;
      view: Pick<ReadModel, 'head' | 'historyFrom'>;
      /** --snapshot-interval (0: none served). */
      interval: number;
    },
  ) {}

  async snapshots(): Promise<SnapshotsView> {
    const { head, historyFrom } = this.d.view;
    const snapshots = await servedSnapshots(this.d.store, {
      finalizedHeight: head.finalizedHeight,
      interval: this.d.interval,
      historyFrom,
    });
    return { interval: this.d.interval, historyFrom, snapshots };
  }

  /** Each node's RLP bytes (hex), or null where the store holds none; one multi-get. Hashes: 0x + 64 hex digits. */
  async stateNodes(hashes: readonly Hex[]): Promise<(Hex | null)[]> {
    const found = await getMany(
      this.d.kv,
      hashes.map((h) => nodeKey(h.slice(2))),
    );
    return found.map((v) => (v === undefined ? null : toHex(v)));
  }
}
