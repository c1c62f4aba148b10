import type { Hex } from '../../primitives/hex';
import { refusals } from '../../protocol/refusal';
import type { Address } from '../../protocol/types';

/** Governance's refusals. A bridge committee a proposal would install is refused by protocol/bridge.ts COMMITTEE. */
export const GOVERNANCE = refusals('governance', {
  GOV_DEPOSIT_TOO_LOW: (m: { minimum: bigint }) => `the deposit must be at least ${m.minimum} base units (GOV_DEPOSIT)`,
  GOV_PROPOSAL_MISSING: (m: { proposal: Hex }) => `proposal ${m.proposal} does not exist`,
  /** GOV_VOTE on a proposal whose vote has ended (`status` is its state). */
  GOV_PROPOSAL_NOT_VOTING: (m: { proposal: Hex; status: string }) =>
    `proposal ${m.proposal} is ${m.status}, not under vote`,
  /** The voter has no stake of its own and no votes received as a candidate. */
  GOV_NO_VOTING_POWER: (_: { voter: Address }) => 'GOV_VOTE needs voting power: stake coins first (STAKE)',
  /**
   * A passed parameter change the parameter's bounds refuse at execution; `why` is protocol/governable.ts
   * paramRefusal's wording.
   */
  GOV_PARAM_REFUSED: (m: { param: string; value: string; why: string }) => m.why,
  GOV_TREASURY_SHORT: (m: { held: bigint; amount: bigint }) =>
    `the treasury holds ${m.held} base units, less than the ${m.amount} to spend`,
});
