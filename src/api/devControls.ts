import type { DevMined, DevRevertedView, DevSnapshotView } from '../views';
import type { ActorRef } from '../actors/actorRef';
import type { ConsensusMsg, ConsensusReplies } from '../actors/protocol';
import type { Head } from '../protocol/chain';
import type { ChainStore } from '../storage/chainStore';

/** A snapshot: the chain at a height, named by the block hash it had there. */
export type DevSnapshot = DevSnapshotView;

/** Why a development control was refused, with its HTTP status. */
export class DevRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The development controls of a --dev node (POST /dev/mine, /dev/snapshot, /dev/revert),
 * for lifecycle fuzzers. A snapshot is the chain at a height; reverting undoes every block
 * above it (below finality too: a --dev node keeps every undo record) and drops their
 * transactions, and **the snapshot stays usable**: revert to it as often as you like (Hardhat's
 * evm_revert consumes its snapshot). A snapshot whose block was itself undone and replaced
 * (a revert to an earlier snapshot, then new blocks) is refused, never silently wrong.
 * Snapshots are kept in memory: a restart forgets them.
 */
export class DevControls {
  private readonly snaps = new Map<number, DevSnapshot>();
  private next = 1;
  /** Reverts so far: a revert undoes final blocks too, so what a reader cached as final is not (http/routes/txs.ts). */
  reverts = 0;

  constructor(
    private readonly d: {
      consensus: Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'>;
      store: ChainStore;
      head: () => Head;
      now?: () => number;
    },
  ) {}

  mine(count: number): Promise<DevMined | { refused: string }> {
    return this.d.consensus.ask({ type: 'devMine', count });
  }

  snapshot(): DevSnapshot {
    const h = this.d.head();
    const s: DevSnapshot = {
      id: this.next++,
      height: h.height,
      hash: h.hash,
      stateRoot: h.stateRoot,
      takenAt: (this.d.now ?? Date.now)(),
    };
    this.snaps.set(s.id, s);
    return s;
  }

  list(): DevSnapshot[] {
    return [...this.snaps.values()];
  }

  async revert(id: number): Promise<DevRevertedView> {
    const s = this.snaps.get(id);
    if (!s)
      throw new DevRefusal(
        404,
        `no snapshot ${id} (snapshots: ${[...this.snaps.keys()].join(', ') || 'none'}; a restart forgets them)`,
      );
    const at = (await this.d.store.summary(s.height))?.hash;
    if (at !== s.hash)
      throw new DevRefusal(
        409,
        `snapshot ${id} is gone: the block at height ${s.height} is now ${at ?? 'missing'}, not ${s.hash} ` +
          `(it was undone and replaced)`,
      );
    const before = this.d.head().height;
    const head = await this.d.consensus.ask({ type: 'devRewind', height: s.height });
    this.reverts++;
    return { snapshot: s, head, undone: before - head.height };
  }
}
