import { VM_MAX_GAS } from '../protocol/params';
import { PARAMS } from '../protocol/governable';

export { VM_MAX_GAS };

/** Limits of the VM JSON-RPC surface (docs/API.md "The JSON-RPC port"). */
export const MAX_RPC_BATCH = 50;
export const LOGS_MAX_BLOCK_SPAN = 5_000;
export const LOGS_MAX_RESULTS = 10_000;
/** Gas a plain value transfer costs on Ethereum; what native (non-VM) transactions report. */
export const NATIVE_TX_GAS = 21_000n;
/** eth_feeHistory answers at most this many blocks (geth's cap). */
export const FEE_HISTORY_MAX_BLOCKS = 1_024;
/** eth_feeHistory accepts at most this many reward percentiles. */
export const FEE_HISTORY_MAX_PERCENTILES = 100;
/** Default largest request body (a 50-call batch of large eth_call payloads fits). */
export const RPC_MAX_BODY_BYTES = 1024 * 1024;
/** Block gasLimit eth_getBlock* reports when the block's own BLOCK_GAS_LIMIT is unknown: the parameter's default. */
export const BLOCK_GAS_LIMIT = PARAMS.BLOCK_GAS_LIMIT.default;
