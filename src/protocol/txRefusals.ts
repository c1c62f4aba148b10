import { refusals } from './refusal';

/**
 * The refusals every transaction type shares: admission's (the spec's reasons, exactly as the
 * API shows them), a block's (a transaction that cannot be included) and the mempool's drops.
 */
export const TX = refusals('tx', {
  TX_NONCE_USED: () => 'nonce already used',
  TX_NONCE_TOO_FAR: () => 'nonce too far ahead',
  /** Not includable yet: an earlier nonce of the sender is missing (the block builder waits). */
  TX_NONCE_GAP: () => 'nonce gap',
  TX_KNOWN: () => 'transaction already known',
  MEMPOOL_FULL: () => 'mempool full',
  TX_BAD_SIGNATURE: () => 'invalid signature',
  TX_INSUFFICIENT_BALANCE: () => 'insufficient balance',
  TX_FEE_LIMIT: () => 'fee limit below the energy shortfall',
  TX_UNKNOWN_TYPE: (m: { type: string }) => `unknown transaction type ${m.type}`,
  /** The envelope or its data breaks a stateless rule (a field's shape, a bound): the reason names it. */
  TX_MALFORMED: (m: { error: string }) => m.error,
  TX_EXPIRED: () => 'mempool lifetime reached',
  TX_GAP_EXPIRED: () => 'nonce gap not filled within the gapped lifetime',
  TX_EVICTED: () => 'evicted from the full mempool by a ready transaction (nonce gap not filled)',
  /** Its execution threw: a bug in the producing node (INTERNAL_ERROR), dropped rather than halting blocks. */
  /** Not a verdict on the transaction: signature verification or the mempool is unavailable (retry). */
  TX_UNAVAILABLE: (m: { error: string }) => m.error,
  TX_INTERNAL_ERROR: () => 'internal error: the node could not execute this transaction',
});

/** The admission refusals by the names the mempool uses. */
export const REFUSAL = Object.freeze({
  nonceUsed: TX.TX_NONCE_USED(),
  nonceAhead: TX.TX_NONCE_TOO_FAR(),
  known: TX.TX_KNOWN(),
  full: TX.MEMPOOL_FULL(),
  signature: TX.TX_BAD_SIGNATURE(),
  balance: TX.TX_INSUFFICIENT_BALANCE(),
});

/** Why a pending transaction left the pool without a block (`reason` of a dropped `/tx/:id`). */
export const DROP = Object.freeze({
  lifetime: TX.TX_EXPIRED(),
  gappedLifetime: TX.TX_GAP_EXPIRED(),
  evicted: TX.TX_EVICTED(),
});
