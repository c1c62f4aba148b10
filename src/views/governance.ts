import type { ProposalAction, ProposalStatus, Tally } from '../modules/governance/machine';
import type { VoteAction } from '../modules/governance/actions';
import type { ParamSpec } from '../protocol/governable';
import type { Address } from '../protocol/types';
import type { CappedPage } from './paging';

export type { ProposalAction, ProposalStatus, Tally, VoteAction };

/** JSON shapes of GET /validators, /governance, /governance/proposals and /treasury. */

export interface ValidatorPerformance {
  /**
   * Its turns among the window's blocks by the set in force (blocks ÷ n each): a live validator produces about that
   * many.
   */
  expected: number;
  produced: number;
  missed: number;
  /** produced / expected, 0..1 (1 when nothing was expected). */
  productivity: number;
  status: 'active' | 'standby' | 'candidate' | 'ineligible' | 'jailed';
}

/**
 * A member of the set in force. `pending`: it has slots but does not count for finality until
 * its first block is final (`pendingSince`: the height it entered the set in force;
 * `firstBlock`: its first block since, or null). `active`: it counts. `jailed`: jailed while
 * still in force (it leaves once the jailing's block is final).
 */
export interface MemberView {
  address: Address;
  state: 'pending' | 'active' | 'jailed';
  pendingSince: number | null;
  firstBlock: number | null;
  countsForFinality: boolean;
  /** Height of its last block while in the set in force, or null. */
  lastProduced: number | null;
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
  /** Out of elections since `at`: downtime (ask back in with STAKE candidate) or a proven double sign (for good). */
  jailed: { at: number; reason: 'downtime' | 'double-sign' } | null;
  /** Height of its last block while in the set in force, or null. */
  lastProduced: number | null;
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
  /** Who holds the current slot (slot mod n of the set in force). */
  slotProducer: Address;
  /** The set in force: it schedules slots and counts for finality (an elected set waits for finality first). */
  inForce: Address[];
  /** Height from which `inForce` schedules. */
  inForceSince: number;
  /** Elected sets waiting until the height that decided them is final. */
  pending: { active: Address[]; decidedAt: number }[];
  /** Blocks without one of its own after which a member of the set in force is jailed (JAIL_MISSED_ROUNDS × n). */
  jailAfterBlocks: number;
  /** Each member of the set in force: whether it counts for finality yet (docs/PROTOCOL.md "Validators"). */
  members: MemberView[];
  /**
   * Blocks a pending member may go without producing before it is jailed and leaves the set in force (JOINING_ROUNDS ×
   * n).
   */
  pendingLeaveAfterBlocks: number;
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
  /**
   * With `?for=<address>`: the transactions that address may send to the proposal from the next
   * block (GOV_VOTE while it is under vote and the address has voting power), each with its
   * height window — decided by the proposal machine's rules and GOV_VOTE's own check.
   */
  actions?: VoteAction[];
  /** With `?for=`: the head height the actions were decided at. */
  actionsAt?: number;
}

export interface ProposalsPage extends CappedPage {
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
