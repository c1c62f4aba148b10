import type { Address } from '../../protocol/types';
import { refusals } from '../../protocol/refusal';

/** Why DELEGATE_RESOURCE and UNDELEGATE_RESOURCE are refused. */
export const RESOURCE = refusals('resources', {
  /** DELEGATE_RESOURCE lends more than the sender's stake not lent already (staked − lent). */
  RESOURCE_STAKE_NOT_FREE: (m: { amount: bigint; free: bigint; staked: bigint; lent: bigint }) =>
    `DELEGATE_RESOURCE lends ${m.amount} base units but only ${m.free} of the sender's stake are not lent ` +
    `(${m.staked} staked, ${m.lent} lent)`,
  RESOURCE_NOT_DELEGATED: (m: { to: Address }) => `no resources delegated to ${m.to}`,
  RESOURCE_UNDELEGATE_EXCEEDS_LENT: (m: { to: Address; amount: bigint; lent: bigint }) =>
    `UNDELEGATE_RESOURCE takes back ${m.amount} base units but ${m.lent} are delegated to ${m.to}`,
});
