import type { Address } from '../protocol/types';
import type { CommitteeRecord } from '../protocol/bridge';
import type { Hex } from '../primitives/hex';
import type { Asset, Direction, PoolRecord, TransferContext, TransferStatus } from '../modules/bridge';
import type { CappedPage } from './paging';
import type { TransferAction } from '../modules/bridge/actions';

/** JSON shapes of GET /bridge, /bridge/transfers and /bridge/transfers/:id. */
export type { Asset, Direction, TransferAction, TransferStatus };

export interface BridgeTransition {
  id: Hex;
  from: string;
  to: string;
  event: string;
  height: number;
}

/** A transfer: its machine's context, its state, and the countdown of a DELAYED one. */
export interface BridgeTransferView extends TransferContext {
  id: Hex;
  status: TransferStatus;
  /** Blocks until `releaseAt` while DELAYED (0 once due), else null. */
  releaseInBlocks: number | null;
  history: Omit<BridgeTransition, 'id'>[];
  /** Height of its latest transition. */
  updatedAt: number;
  /**
   * With `?for=<address>`: the transactions that address may send to the transfer from the next
   * block (BRIDGE_SETTLE for a committee member while an outbound transfer is LOCKED), each with
   * its height window — decided by the transfer machine's rules and BRIDGE_SETTLE's own check.
   */
  actions?: TransferAction[];
  /** With `?for=`: the head height the actions were decided at. */
  actionsAt?: number;
}

export interface BridgeTransfersPage extends CappedPage {
  transfers: BridgeTransferView[];
  /**
   * With `since`: every transfer transition at heights in (since, cursor], oldest first, whole blocks only (as
   * /ai/tasks).
   */
  transitions?: BridgeTransition[];
  cursor: number;
  finalizedHeight: number;
  height: number;
}

/** The circuit breaker of one asset in the current window. */
export interface BreakerView {
  window: number;
  windowStart: number;
  /** Last height of the window; releases over the cap wait until windowEnd + 1. */
  windowEnd: number;
  /** The pool's locked amount at the window's first release (now, if nothing was released yet). */
  base: string;
  cap: string;
  used: string;
  remaining: string;
  /** The window's one over-the-cap release for a transfer that waited a window is taken. */
  exempted: boolean;
}

export interface PoolView extends PoolRecord {
  available: string;
  breaker: BreakerView;
}

export interface BridgeView {
  committee: (CommitteeRecord & { members: (CommitteeRecord['members'][number] & { native: string })[] }) | null;
  pools: PoolView[];
  params: { windowBlocks: number; breakerBps: number };
  escrow: Address;
  height: number;
  finalizedHeight: number;
}
