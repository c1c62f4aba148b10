/**
 * Every code a CairnError may carry: one union, so a caller switching on `code` is checked by
 * the compiler and two words for one failure cannot both exist. A transaction's refusals are
 * not here: they are Refusal codes, declared by the module that refuses (protocol/refusal.ts,
 * docs/API.md "Refusal codes").
 */
export type ErrorCode =
  // configuration and the command line
  | 'CONFIG'
  | 'USAGE'
  | 'LISTEN'
  | 'GENESIS_SPEC'
  | 'NO_GENESIS'
  // storage and state
  | 'STORAGE_OPEN'
  | 'STORAGE_WRITE'
  | 'UNDO'
  | 'STATE_SYNC'
  | 'BAD_STATE_ROOT'
  | 'BAD_RECORD'
  | 'BAD_ACCOUNT'
  | 'BAD_PROOF'
  | 'STATE_BAD_NODE'
  | 'STATE_MISSING_NODE'
  | 'STATE_CHECKPOINT_OPEN'
  | 'STATE_NO_CHECKPOINT'
  | 'STATE_READ_ONLY'
  // keys, addresses and transaction fields (stateless input checks)
  | 'INVALID_ADDRESS'
  | 'INVALID_PUBLIC_KEY'
  | 'INVALID_SECRET'
  | 'INVALID_INDEX'
  | 'INVALID_TX_FIELD'
  | 'INVALID_ASSET_TX'
  // the on-chain machine kit (machines/errors.ts): a broken invariant, never a transaction outcome
  | 'MACHINE_BAD_DEFINITION'
  | 'MACHINE_UNKNOWN_VERSION'
  | 'MACHINE_BAD_RECORD'
  | 'MACHINE_NOT_REGISTERED'
  | 'MACHINE_BAD_DEADLINE'
  | 'MACHINE_TICK_FAILED'
  | 'MACHINE_UNSUPPORTED_ACTION'
  // worker pools
  | 'VERIFY_POOL_CLOSED'
  | 'VERIFY_POOL_FULL'
  | 'VERIFY_WORKER_CRASHED'
  | 'VERIFY_WORKER_START_FAILED'
  | 'VM_CALL_BUSY'
  | 'VM_CALL_TIMEOUT'
  | 'VM_CALL_CRASHED'
  | 'VM_CALL_CLOSED'
  | 'VM_CALL_START_FAILED'
  | 'VM_CALL_FAILED'
  // the edges: an HTTP status or a JSON-RPC code is chosen there (http/, rpc/)
  | 'HTTP'
  | 'RPC'
  | 'NOT_FOUND'
  // the SDK and CLI as clients of a node
  | 'NETWORK'
  | 'TIMEOUT'
  | 'BAD_RESPONSE'
  | `HTTP_${number}`;
