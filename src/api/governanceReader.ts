import { recentIds } from './machineFeed';
import { actionsView, type MachineActions } from './machineActions';
import { toNative } from '../crypto/address';
import { loadInstance } from '../machines/instance';
import {
  loadTreasury,
  PROPOSAL_STATES,
  proposalDef,
  rules,
  turnout,
  type ProposalStatus,
} from '../modules/governance/machine';
import { stateName } from '../machines/record';
import {
  commissionAt,
  getCandidate,
  getCandidates,
  getSchedule,
  getValidatorSet,
  JOINING_ROUNDS,
  standings,
  type Standing,
} from '../modules/staking';
import { slotOf, slotProducer } from '../consensus/slots';
import { loadParams, loadParamsRecord, PARAM_NAMES, PARAMS } from '../protocol/governable';
import { TREASURY_ADDRESS } from '../protocol/params';
import type { Address } from '../protocol/types';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { ChainStore } from '../storage/chainStore';
import type {
  GovernanceView,
  ParamView,
  ProposalsPage,
  ProposalView,
  TreasuryView,
  MemberView,
  ValidatorPerformance,
  ValidatorsView,
  ValidatorView,
} from '../views';
import type { GovernanceQueries, ReadModel } from './ports';

/**
 * Turns by height: with n validators producing in turn, each makes about every n-th block (the performance window's
 * expectation).
 */
export const slotProducerOf = (active: readonly Address[], height: number): Address => active[height % active.length];

/**
 * Reads of the validator set, governance and treasury at the published head. Proposals come
 * from consensus state (their machine records) and the node-local machine history (their
 * transitions with heights, and the `since` feed).
 */
export class GovernanceReader implements GovernanceQueries {
  /** `slotMs`: the chain's slot length (the slot producer of now); without it, the next height's turn. */
  constructor(
    private readonly d: {
      kv: KvStore;
      store: ChainStore;
      view: ReadModel;
      actions: MachineActions;
      slotMs?: number;
      now?: () => number;
    },
  ) {}

  private state(): Promise<StateTrie> {
    return StateTrie.open(this.d.kv, this.d.view.head.stateRoot);
  }

  async validators(): Promise<ValidatorsView> {
    const s = await this.state();
    const head = this.d.view.head;
    const p = await loadParams(s);
    const set = await getValidatorSet(s);
    const sch = await getSchedule(s);
    const all = await standings(s, p.MIN_CANDIDATE_STAKE);
    const recent = this.d.view.recent;
    const perf = (a: Address, status: ValidatorPerformance['status']): ValidatorPerformance => {
      let expected = 0;
      let produced = 0;
      for (const b of recent) {
        if (b.height === 0) continue;
        if (sch.active.length && slotProducerOf(sch.active, b.height) === a) expected++;
        if (b.producer === a) produced++;
      }
      const missed = Math.max(0, expected - produced);
      return {
        expected,
        produced,
        missed,
        productivity: expected === 0 ? 1 : Math.min(1, Math.round((produced / expected) * 1000) / 1000),
        status,
      };
    };
    const view = async (st: Standing, status: ValidatorPerformance['status']): Promise<ValidatorView> => {
      const c = (await getCandidate(s, st.address))!;
      return {
        address: st.address,
        native: toNative(st.address),
        stake: st.stake.toString(),
        votes: st.votes.toString(),
        weight: st.weight.toString(),
        commissionBps: commissionAt(c, head.height),
        pendingCommission: c.pendingCommission && c.pendingCommission.at > head.height ? c.pendingCommission : null,
        eligible: st.eligible,
        registeredAt: c.registeredAt,
        jailed: c.jailed ?? null,
        lastProduced: sch.lastProduced[st.address] ?? null,
        performance: perf(st.address, c.jailed ? 'jailed' : status),
      };
    };
    const byAddr = new Map(all.map((st) => [st.address, st]));
    const standingOf = (a: Address): Standing =>
      byAddr.get(a) ?? { address: a, stake: 0n, votes: 0n, weight: 0n, eligible: false };
    const active = await Promise.all(set.active.filter((a) => byAddr.has(a)).map((a) => view(standingOf(a), 'active')));
    const bank = await Promise.all(set.bank.filter((a) => byAddr.has(a)).map((a) => view(standingOf(a), 'standby')));
    const placed = new Set([...set.active, ...set.bank]);
    const candidates = await Promise.all(
      all.filter((st) => !placed.has(st.address)).map((st) => view(st, st.eligible ? 'candidate' : 'ineligible')),
    );
    const epochBlocks = Number(p.EPOCH_BLOCKS);
    return {
      height: head.height,
      epoch: set.epoch,
      epochBlocks,
      nextElection: (Math.floor(head.height / epochBlocks) + 1) * epochBlocks,
      electedAt: set.electedAt,
      maxValidators: Number(p.MAX_VALIDATORS),
      bankSize: Number(p.BANK_SIZE),
      slotProducer:
        (this.d.slotMs ? slotProducer(sch.active, slotOf((this.d.now ?? Date.now)(), this.d.slotMs)) : undefined) ??
        slotProducerOf(sch.active, head.height + 1),
      inForce: sch.active,
      inForceSince: sch.since,
      pending: sch.pending,
      jailAfterBlocks: Number(p.JAIL_MISSED_ROUNDS) * sch.active.length,
      members: await Promise.all(
        sch.active.map(async (a): Promise<MemberView> => {
          const joining = sch.joining?.[a];
          const jailed = (await getCandidate(s, a))?.jailed;
          return {
            address: a,
            state: jailed ? 'jailed' : joining ? 'pending' : 'active',
            pendingSince: joining?.since ?? null,
            firstBlock: joining?.firstBlock ?? null,
            countsForFinality: !joining,
            lastProduced: sch.lastProduced[a] ?? null,
          };
        }),
      ),
      pendingLeaveAfterBlocks: JOINING_ROUNDS * sch.active.length,
      active,
      bank,
      candidates,
      performanceWindow: recent.length,
    };
  }

  async governance(): Promise<GovernanceView> {
    const s = await this.state();
    const rec = await loadParamsRecord(s);
    const params: ParamView[] = PARAM_NAMES.map((name) => {
      const spec = PARAMS[name];
      return {
        name,
        value: rec.values[name],
        default: spec.default.toString(),
        min: spec.min.toString(),
        max: spec.max.toString(),
        unit: spec.unit,
        doc: spec.doc,
        changedAt: rec.changedAt[name] ?? null,
      };
    });
    const counts = Object.fromEntries(PROPOSAL_STATES.map((k) => [k, 0])) as Record<ProposalStatus, number>;
    for (const id of new Set((await this.d.store.machineFeed(proposalDef.name, -1, 10_000)).map((e) => e.id))) {
      const snap = await loadInstance(s, proposalDef, id);
      if (snap) counts[stateName(snap.value) as ProposalStatus]++;
    }
    const head = this.d.view.head;
    return {
      height: head.height,
      finalizedHeight: head.finalizedHeight,
      params,
      proposals: counts,
      rules:
        'GOV_PROPOSE locks a deposit; voting power is staked coins ' +
        '(a candidate also carries the votes of backers who do not vote themselves); ' +
        'after GOV_VOTING_BLOCKS: turnout below GOV_QUORUM_BPS of the stake at proposal time → EXPIRED, veto ' +
        'above GOV_VETO_BPS of all votes → VETOED (deposit to the treasury), ' +
        'yes above GOV_THRESHOLD_BPS of yes+no+veto → QUEUED, else REJECTED; QUEUED executes ' +
        'GOV_TIMELOCK_BLOCKS later → EXECUTED, or FAILED if the change is refused.',
    };
  }

  /**
   * One proposal; with `forAddress`, the `actions` that address may send (modules/governance/actions.ts) from the next
   * block.
   */
  async proposal(id: string, forAddress?: Address): Promise<ProposalView | undefined> {
    const s = await this.state();
    const snap = await loadInstance(s, proposalDef, id);
    if (!snap) return undefined;
    const c = snap.context;
    const history = await this.d.store.machineHistory(proposalDef.name, id);
    const t = turnout(c.tally);
    const quorum = (BigInt(c.stakeAtStart) * BigInt(c.quorumBps)) / 10_000n;
    return {
      id,
      status: stateName(snap.value) as ProposalStatus,
      proposer: c.proposer,
      deposit: c.deposit,
      action: c.action,
      createdAt: c.createdAt,
      votingEnds: c.votingEnds,
      decidedAt: c.decidedAt,
      executeAt: c.executeAt,
      failure: c.failure,
      rules: {
        quorumBps: c.quorumBps,
        thresholdBps: c.thresholdBps,
        vetoBps: c.vetoBps,
        timelock: c.timelock,
        stakeAtStart: c.stakeAtStart,
      },
      tally: {
        ...c.tally,
        voters: c.voters,
        turnout: t.toString(),
        quorum: quorum.toString(),
        quorumReached: rules.quorumReached(c),
      },
      tallyHistory: history
        .filter((h) => h.summary)
        .map((h) => ({
          yes: h.summary!.yes,
          no: h.summary!.no,
          abstain: h.summary!.abstain,
          veto: h.summary!.veto,
          voters: Number(h.summary!.voters),
          height: h.height,
        })),
      history: history.map(({ from, to, event, height }) => ({ from, to, event, height })),
      updatedAt: history.length ? history[history.length - 1].height : c.createdAt,
      ...(forAddress ? await actionsView(this.d.actions, proposalDef.name, id, forAddress) : {}),
    };
  }

  /** Proposals that changed after `since` (all without it), latest change first, filtered by status. */
  async proposals(q: { status?: ProposalStatus; since?: number; limit?: number }): Promise<ProposalsPage> {
    const head = this.d.view.head;
    const limit = q.limit ?? 100;
    // Without `since`: the proposals that changed most recently (the newest end of the feed, however long it grew).
    const feed = q.since === undefined ? [] : await this.d.store.machineFeed(proposalDef.name, q.since, 10_000);
    const truncated = feed.length >= 10_000;
    const ids =
      q.since === undefined
        ? await recentIds(this.d.store, proposalDef.name)
        : [...new Map(feed.map((e) => [e.id, e.height])).entries()]
            .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
            .map(([id]) => id);
    const out: ProposalView[] = [];
    for (const id of ids) {
      const p = await this.proposal(id);
      if (p && (!q.status || p.status === q.status)) out.push(p);
      if (out.length >= limit) break;
    }
    const cursor = truncated ? feed[feed.length - 1].height : Math.max(q.since ?? 0, head.height);
    return { proposals: out, cursor, finalizedHeight: head.finalizedHeight, height: head.height };
  }

  async treasury(): Promise<TreasuryView> {
    const s = await this.state();
    const balance = (await s.getAccount(TREASURY_ADDRESS))?.balance ?? 0n;
    const t = await loadTreasury(s);
    const p = await loadParams(s);
    return {
      address: TREASURY_ADDRESS,
      native: toNative(TREASURY_ADDRESS),
      balance: balance.toString(),
      income: (balance + BigInt(t.spent)).toString(),
      spent: t.spent,
      spends: t.spends,
      policy: {
        treasuryRewardPerBlock: p.TREASURY_REWARD.toString(),
        spendsBy: 'GOV_PROPOSE with data.spend, passed by governance and executed after the timelock',
        vetoedDeposits: 'the deposit of a VETOED proposal goes to the treasury',
      },
    };
  }

  /** Every candidate address (for search and the CLI). */
  async candidateList(): Promise<Address[]> {
    return getCandidates(await this.state());
  }
}
