import type { Hex } from '../../primitives/hex';
import { refusals } from '../../protocol/refusal';
import type { Address } from '../../protocol/types';

/**
 * The bridge's refusals. A committee's shape is refused by protocol/bridge.ts COMMITTEE (governance installs committees
 * too).
 */
export const BRIDGE = refusals('bridge', {
  BRIDGE_NO_COMMITTEE: () =>
    'there is no bridge committee yet: a governance proposal creates it (GOV_PROPOSE data.committee)',
  /** Fewer distinct members signed (both halves of the hybrid scheme) than the committee's threshold. */
  BRIDGE_QUORUM_MISSING: (m: { what: string; valid: number; threshold: number; epoch: number }) =>
    `${m.what}: ${m.valid} valid member signatures of ${m.threshold} needed ` +
    `(committee epoch ${m.epoch}; both secp256k1 and ML-DSA-44 halves of each)`,
  BRIDGE_MEMBER_SECP256K1_NOT_ON_CURVE: (m: { member: Address }) =>
    `member ${m.member}: secp256k1 is not a point of the curve`,
  /** A member's address is not the one its secp256k1 key controls. */
  BRIDGE_MEMBER_ADDRESS_MISMATCH: (m: { member: Address; derived: Address }) =>
    `member ${m.member}: its secp256k1 key controls ${m.derived}, not ${m.member}`,
  BRIDGE_DEPOSIT_ALREADY_ATTESTED: (m: { chain: string; sourceTx: string; transfer: Hex }) =>
    `deposit ${m.chain}:${m.sourceTx} was already attested (transfer ${m.transfer})`,
  BRIDGE_NOT_COMMITTEE_MEMBER: (m: { sender: Address; epoch: number }) =>
    `${m.sender} is not a member of the bridge committee (epoch ${m.epoch})`,
  BRIDGE_TRANSFER_MISSING: (m: { transfer: Hex }) => `transfer ${m.transfer} does not exist`,
  /** BRIDGE_SETTLE names an inbound transfer: only outbound ones are settled. */
  BRIDGE_TRANSFER_INBOUND: (m: { transfer: Hex }) =>
    `transfer ${m.transfer} is inbound: only outbound transfers are settled`,
  BRIDGE_TRANSFER_NOT_LOCKED: (m: {
    transfer: Hex;
    status: string;
    settledBy: Address | null;
    targetTx: string | null;
  }) => `transfer ${m.transfer} is ${m.status}, not LOCKED: it was settled by ${m.settledBy} (${m.targetTx})`,
  /** The payout on the target chain was already named by another BRIDGE_SETTLE. */
  BRIDGE_PAYOUT_ALREADY_SETTLED: (m: { chain: string; targetTx: string; transfer: Hex }) =>
    `payout ${m.chain}:${m.targetTx} already settled transfer ${m.transfer}`,
  /** The pool's locked and not yet promised amount (`free`, base units) is less than the deposit attested. */
  BRIDGE_POOL_SHORT: (m: { asset: string; free: bigint; locked: bigint; reserved: bigint; amount: bigint }) =>
    `the bridge holds ${m.free} base units of ${m.asset} free to release ` +
    `(${m.locked} locked, ${m.reserved} promised), less than ${m.amount}`,
  /** The circuit breaker's window is used up: the transfer waits until height `until` (DELAYED). */
  BRIDGE_BREAKER_FULL: (m: { asset: string; allowed: bigint; window: number; base: bigint; until: number }) =>
    `the circuit breaker of ${m.asset} allows ${m.allowed} more base units in window ${m.window} ` +
    `(BRIDGE_BREAKER_BPS of ${m.base}): released from height ${m.until}`,
});
