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

/**
 * Units a call weighs against the client's rate limit (shared with the HTTP API: web/rateLimit.ts COST, a unit about
 * 1 ms of the serving thread), before its answer's length is charged: 1 unless named here. Each call of a batch
 * counts. Named: what costs more than its answer shows — a block decoded (~2 ms for 500 transactions even without
 * them in the answer), a log index scanned over up to LOGS_MAX_BLOCK_SPAN blocks, VM runs on a worker (eth_call one,
 * eth_estimateGas a few).
 */
export const RPC_CALL_WEIGHTS: ReadonlyMap<string, number> = new Map([
  ['eth_getBlockByNumber', 2],
  ['eth_getBlockByHash', 2],
  ['eth_getLogs', 4],
  ['eth_call', 2],
  ['eth_estimateGas', 4],
]);

const callWeight = (call: unknown): number => {
  const method = typeof call === 'object' && call !== null ? (call as { method?: unknown }).method : undefined;
  return (typeof method === 'string' && RPC_CALL_WEIGHTS.get(method)) || 1;
};

/** What a request body weighs up front: each call of a batch its weight; a batch the dispatcher refuses, 1. */
export function rpcWeight(body: unknown): number {
  if (!Array.isArray(body)) return callWeight(body);
  if (body.length === 0 || body.length > MAX_RPC_BATCH) return 1;
  let w = 0;
  for (const call of body) w += callWeight(call);
  return w;
}
