import type { HybridTx, TxPayload, TxResult } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { TxLifecycleState, TxStatus } from '../machines/txLifecycle';

export type { TxStatus };

/** A transaction without its bulky authentication (keys and signatures, or the raw bytes): feeds, blocks. */
export type TxSummary = TxPayload & {
  id: Hex;
  envelope?: 'eth';
  gasLimit?: string;
  /** Ethereum envelopes: wei per gas as signed (gasPrice, or maxFeePerGas for EIP-1559). */
  gasPrice?: string;
  valueWei?: string;
  input?: Hex;
  fromNative: string;
  toNative: string | null;
  status: TxStatus;
  blockHeight?: number;
  blockHash?: Hex;
  index?: number;
  result?: TxResult;
  /** Why the mempool dropped or refused it. */
  reason?: string;
  /** The code of `reason` (docs/API.md "Refusal codes"). */
  code?: string;
};

/** GET /tx/:id: the summary, where the node has it, its lifecycle state and its authentication. */
export type TxRecord = TxSummary & {
  publicKeys?: HybridTx['publicKeys'];
  signatures?: HybridTx['signatures'];
  raw?: Hex;
  lifecycle: TxLifecycleState;
  receivedAt?: number;
};
