import type { ProposalAction, ProposalStatus, Tally } from '../machines/proposal';
import type { ParamSpec } from '../protocol/governable';
import type { Address } from '../protocol/types';

export type { ProposalAction, ProposalStatus, Tally };

/** JSON shapes of GET /validators, /governance, /governance/proposals and /treasury. */

export interface ValidatorPerformance {
  /** Blocks of the window the rotation gave it. */
  expected: number;
  produced: number;
  missed: number;
  /** produced / expected, 0..1 (1 when nothing was expected). */
  productivity: number;
  status: 'active' | 'standby' | 'candidate' | 'ineligible';
}

export interface ValidatorView {
  address: Address;
  native: string;
  /** Own stake, base units. */
  stake: string;
  /** Votes received (its own included), base units. */
  votes: string;
  /** Election weight: own stake not allocated elsewhere + votes received. */
  weight: string;
  commissionBps: number;
  pendingCommission: { bps: number; at: number } | null;
  eligible: boolean;
  registeredAt: number;
  performance: ValidatorPerformance;
}

export interface ValidatorsView {
  height: number;
  epoch: number;
  epochBlocks: number;
  /** The next election height. */
  nextElection: number;
  electedAt: number;
  maxValidators: number;
  bankSize: number;
  /** Who produces the next block by the rotation (height mod active set). */
  slotProducer: Address;
  active: ValidatorView[];
  bank: ValidatorView[];
  /** Candidates neither active nor banked. */
  candidates: ValidatorView[];
  /** Blocks the performance figures cover. */
  performanceWindow: number;
}

export interface ParamView extends Omit<ParamSpec, 'default' | 'min' | 'max'> {
  name: string;
  value: string;
  default: string;
  min: string;
  max: string;
  /** Height of the proposal that last set it, or null. */
  changedAt: number | null;
}

export interface GovernanceView {
  height: number;
  finalizedHeight: number;
  params: ParamView[];
  proposals: Record<ProposalStatus, number>;
  rules: string;
}

export interface ProposalTransition {
  from: string;
  to: string;
  event: string;
  height: number;
}

export interface ProposalView {
  id: string;
  status: ProposalStatus;
  proposer: Address;
  deposit: string;
  action: ProposalAction;
  createdAt: number;
  votingEnds: number;
  decidedAt: number | null;
  executeAt: number | null;
  failure: string | null;
  rules: { quorumBps: number; thresholdBps: number; vetoBps: number; timelock: number; stakeAtStart: string };
  /** The live tally while VOTING, the final one after. */
  tally: Tally & { voters: number; turnout: string; quorum: string; quorumReached: boolean };
  /** The tally after each change, by height. */
  tallyHistory: (Tally & { voters: number; height: number })[];
  history: ProposalTransition[];
  /** Height of its latest transition. */
  updatedAt: number;
}

export interface ProposalsPage {
  proposals: ProposalView[];
  /** Pass as `since` to get what changes next (the newest height covered). */
  cursor: number;
  finalizedHeight: number;
  height: number;
}

export interface TreasuryView {
  address: Address;
  native: string;
  balance: string;
  /** Everything it received: balance + spent. */
  income: string;
  spent: string;
  spends: { proposal: string; to: Address; amount: string; height: number }[];
  policy: { treasuryRewardPerBlock: string; spendsBy: string; vetoedDeposits: string };
}
