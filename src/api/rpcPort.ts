import type { Address, Block, SignedTx, TxResult } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { MaybePromise } from '../primitives/maybe';

/**
 * What the JSON-RPC layer needs from the node. The node implements it
 * (api/rpcBackend.ts) over the chain reader, the VM and the admission pipeline; rpc/ never
 * reaches further in.
 * Block tags are resolved by the RPC layer to heights before calling (`pending` = head).
 */
export interface RpcCallMessage {
  from?: Address;
  to?: Address | null;
  valueWei?: bigint;
  input?: Uint8Array;
  gasLimit?: bigint;
  gasPrice?: bigint;
}

export type RpcCallOutcome =
  | { ok: true; returnData: Hex; gasUsed: bigint }
  | { ok: false; error: string; returnData?: Hex };

export interface RpcLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  blockHeight: number;
  blockHash: Hex;
  txHash: Hex;
  txIndex: number;
  logIndex: number; // position in the block
}

export interface RpcLogFilter {
  fromHeight: number;
  toHeight: number;
  addresses: Address[]; // empty = any
  topics: (Hex[] | null)[]; // per position: null = any, array = one of
  limit: number; // stop after this many (the RPC layer asks for cap + 1 to detect overflow)
}

export interface RpcTxLocation {
  tx: SignedTx;
  block?: { height: number; hash: Hex; index: number; result: TxResult; timestamp: number };
}

export interface RpcBackend {
  readonly chainId: number;
  readonly clientVersion: string;
  headHeight(): number;
  /** Highest final height (`safe` and `finalized` block tags). */
  finalizedHeight(): number;
  /** The lowest height whose history (blocks, logs) this node keeps: 0 for an archive. */
  historyFrom(): number;
  /** The lowest height whose state this node keeps (reads at a block): 0 for an archive. */
  stateFrom(): number;
  /** Full block with its byte size, by height or hash. */
  /** `gasLimit`: the BLOCK_GAS_LIMIT the block was built under (its parent's state), when known. */
  block(ref: number | Hex): Promise<{ block: Block; size: number; gasLimit?: bigint } | undefined>;
  balanceWei(addr: Address, height: number): MaybePromise<bigint>;
  code(addr: Address, height: number): Promise<Hex>;
  /** `pending` counts the sender's contiguous pending transactions (= nextNonce). */
  nonce(addr: Address, at: number | 'pending'): Promise<number>;
  tx(hash: Hex): Promise<RpcTxLocation | undefined>;
  logs(filter: RpcLogFilter): Promise<RpcLog[]>;
  /** `caller`: the client's key; VM calls are shared fairly between callers (vm/callPool.ts). */
  call(msg: RpcCallMessage, height: number, caller?: string): MaybePromise<RpcCallOutcome>;
  estimateGas(
    msg: RpcCallMessage,
    caller?: string,
  ): Promise<{ ok: true; gas: bigint } | { ok: false; error: string; returnData?: Hex }>;
  /** Same admission path as POST /vm/tx: accepted → the hash; refused → the spec's reason. */
  sendRawTransaction(
    raw: Hex,
  ): Promise<{ accepted: true; hash: Hex } | { accepted: false; reason: string; code: string }>;
  /** Fixed gas price in wei: FEES.VM_TRANSFER × 10^12 / 21,000. */
  gasPrice(): bigint;
}
