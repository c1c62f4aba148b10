import { toNative } from '../crypto/address';
import { actionsView, type MachineActions } from './machineActions';
import type { Address } from '../protocol/types';
import { loadInstance } from '../machines/instance';
import { stateName } from '../machines/record';
import {
  available,
  getBreaker,
  getPool,
  getPoolAssets,
  transferDef,
  windowOf,
  type TransferStatus,
} from '../modules/bridge';
import { getCommittee } from '../protocol/bridge';
import { loadParams } from '../protocol/governable';
import { BRIDGE_ESCROW_ADDRESS } from '../protocol/params';
import type { Hex } from '../primitives/hex';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { ChainStore } from '../storage/chainStore';
import type { BridgeTransfersPage, BridgeTransferView, BridgeView, Direction, PoolView } from '../views';
import { feedPage, historyOf, recentIds } from './machineFeed';
import type { BridgeQueries, ReadModel } from './ports';

/**
 * Reads of the bridge at the published head: the committee and pools from consensus state,
 * transfers from their machine records with their transitions from the node-local history
 * (rolled back with a replaced block, like every machine history).
 */
export class BridgeReader implements BridgeQueries {
  constructor(private readonly d: { kv: KvStore; store: ChainStore; view: ReadModel; actions: MachineActions }) {}

  private state(): Promise<StateTrie> {
    return StateTrie.open(this.d.kv, this.d.view.head.stateRoot);
  }

  /**
   * One transfer; with `forAddress`, the `actions` that address may send (modules/bridge/actions.ts) from the next
   * block.
   */
  async transfer(id: string, forAddress?: Address, at?: StateTrie): Promise<BridgeTransferView | undefined> {
    const s = at ?? (await this.state());
    const snap = await loadInstance(s, transferDef, id);
    if (!snap) return undefined;
    const status = stateName(snap.value) as TransferStatus;
    const history = await historyOf(this.d.store, transferDef.name, id);
    const c = snap.context;
    return {
      id: id as Hex,
      status,
      ...c,
      releaseInBlocks:
        status === 'DELAYED' && c.releaseAt !== null ? Math.max(0, c.releaseAt - this.d.view.head.height) : null,
      history,
      updatedAt: history.length ? history[history.length - 1].height : c.createdAt,
      ...(forAddress ? await actionsView(this.d.actions, transferDef.name, id, forAddress) : {}),
    };
  }

  /**
   * As /ai/tasks: without `since` the latest changed transfers; with it the transitions after it and the transfers they
   * touched.
   */
  async transfers(q: {
    direction?: Direction;
    status?: TransferStatus;
    since?: number;
    final?: boolean;
    limit?: number;
  }): Promise<BridgeTransfersPage> {
    const head = this.d.view.head;
    const limit = q.limit ?? 100;
    const s = await this.state();
    const match = (t: BridgeTransferView) =>
      (!q.status || t.status === q.status) && (!q.direction || t.direction === q.direction);
    const page = { cursor: head.height, finalizedHeight: head.finalizedHeight, height: head.height };
    if (q.since === undefined) {
      const transfers: BridgeTransferView[] = [];
      for (const id of await recentIds(this.d.store, transferDef.name)) {
        const t = await this.transfer(id, undefined, s);
        if (t && match(t)) transfers.push(t);
        if (transfers.length >= limit) break;
      }
      return { transfers, ...page };
    }
    const { feed, cursor } = await feedPage(
      this.d.store,
      transferDef.name,
      q.since,
      limit,
      q.final ? head.finalizedHeight : head.height,
    );
    const transfers: BridgeTransferView[] = [];
    for (const id of new Set(feed.map((e) => e.id))) {
      const t = await this.transfer(id, undefined, s);
      if (t && match(t)) transfers.push(t);
    }
    const kept = new Set(transfers.map((t) => t.id as string));
    const transitions = feed
      .filter((e) => kept.has(e.id))
      .map(({ id, from, to, event, height }) => ({ id: id as Hex, from, to, event, height }));
    return { transfers, transitions, ...page, cursor };
  }

  async bridge(): Promise<BridgeView> {
    const s = await this.state();
    const p = await loadParams(s);
    const head = this.d.view.head;
    const w = windowOf(head.height, p.BRIDGE_WINDOW_BLOCKS);
    const size = Number(p.BRIDGE_WINDOW_BLOCKS);
    const pools: PoolView[] = [];
    for (const asset of await getPoolAssets(s)) {
      const pool = await getPool(s, asset);
      const b = await getBreaker(s, asset);
      // The breaker record is written at a window's first release; an older one says nothing about this window.
      const current = b && b.window === w ? b : { base: pool.locked, used: '0', exempted: false };
      const cap = (BigInt(current.base) * p.BRIDGE_BREAKER_BPS) / 10_000n;
      const left = cap - BigInt(current.used);
      pools.push({
        ...pool,
        available: available(pool).toString(),
        breaker: {
          window: w,
          windowStart: w * size,
          windowEnd: (w + 1) * size - 1,
          base: current.base,
          cap: cap.toString(),
          used: current.used,
          remaining: (left > 0n ? left : 0n).toString(),
          exempted: current.exempted,
        },
      });
    }
    const c = await getCommittee(s);
    return {
      committee: c ? { ...c, members: c.members.map((m) => ({ ...m, native: toNative(m.address) })) } : null,
      pools,
      params: { windowBlocks: size, breakerBps: Number(p.BRIDGE_BREAKER_BPS) },
      escrow: BRIDGE_ESCROW_ADDRESS,
      height: head.height,
      finalizedHeight: head.finalizedHeight,
    };
  }
}
