import type { Address } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { CappedPage } from './paging';
import type { TxSummary } from './tx';

/** JSON shapes of the transaction feeds (GET /mempool, /address/:end/txs, /analysis, /internal, /logs). */

export interface MempoolView extends CappedPage {
  count: number;
  txs: (TxSummary & { receivedAt: number })[];
}

/** GET /address/:end/txs (without `address`, which the route adds). `nextBefore` is a height. */
export interface AddressTxsPage {
  txs: TxSummary[];
  nextBefore: number | null;
}

/** GET /address/:end/analysis: aggregates over the address's newest `window` transactions. */
export interface AnalysisView {
  address: Address;
  native: string;
  window: number;
  counted: number;
  counts: { total: number; sent: number; received: number; failed: number };
  sent: string;
  received: string;
  feesBurned: string;
  byType: Record<string, number>;
  counterparties: { address: Address; native: string; count: number }[];
  firstSeenHeight: number | null;
  lastSeenHeight: number | null;
}

/** GET /internal: value moved inside VM execution. */
export interface InternalTransferView {
  txId: Hex;
  kind: string;
  from: Address;
  to: Address;
  fromNative: string;
  toNative: string;
  amount: string; // base units, rounded down
  amountWei: string;
  blockHeight: number;
}

/** GET /logs: a VM log with its position. */
export interface LogView {
  address: Address;
  addressNative: string;
  topics: Hex[];
  data: Hex;
  blockHeight: number;
  txIndex: number;
  logIndex: number;
}
