import { toNative } from '../crypto/address';
import { actionsView, type MachineActions } from './machineActions';
import type { CodeOf } from '../protocol/refusal';
import type { AI } from '../modules/ai/errors';
import { loadInstance } from '../machines/instance';
import { stateName } from '../machines/record';
import { dutyRefusal, getOracle, getOracleList, type OracleRecord } from '../modules/ai/oracles';
import { taskDef, type TaskContext, type TaskMode, type TaskStatus } from '../modules/ai/machine';
import { loadParams } from '../protocol/governable';
import type { Address } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { ChainStore } from '../storage/chainStore';
import type { AddressTxsPage, OraclesView, OracleView, TasksPage, TaskTransition, TaskView } from '../views';
import { feedPage, historyOf, recentIds } from './machineFeed';
import type { AiQueries, ReadModel } from './ports';

/** A duty sent after its window: the code the task machine's status rules give (modules/ai/errors.ts). */
const LATE: CodeOf<typeof AI> = 'AI_WINDOW_CLOSED';

/** The windows a task is waiting on, in the order they come, with what happens at each. */
const NEXT: Partial<Record<TaskStatus, [keyof TaskView['deadlines'], string]>> = {
  COMMIT: ['commitEnds', 'the commit window closes'],
  REVEAL: ['revealEnds', 'the reveal window closes and the answer is decided'],
  BIDDING: ['bidEnds', 'bidding closes (the lowest bid wins unless awarded)'],
  PENDING: ['expiresAt', 'the task expires without a result'],
  CHALLENGE: ['challengeEnds', 'the challenge window closes (then AI_CLAIM settles)'],
  DISPUTED: ['verdictEnds', 'the verdicts are counted'],
};

export interface TaskQuery {
  status?: TaskStatus;
  mode?: TaskMode;
  oracle?: Address;
  since?: number;
  final?: boolean;
  limit?: number;
}

/** Does `oracle` take part in the task (committer, bidder, juror, assigned or winner)? */
const involves = (c: TaskContext, oracle: Address): boolean =>
  c.oracle === oracle || oracle in c.commits || oracle in c.bids || oracle in c.verdicts || c.winners.includes(oracle);

/**
 * Reads of the AI layer at the published head: tasks from their machine records (consensus
 * state) with their transitions from the node-local machine history, and oracle records.
 */
export class AiReader implements AiQueries {
  constructor(
    private readonly d: {
      kv: KvStore;
      store: ChainStore;
      view: ReadModel;
      addressTxs: (a: Address, limit: number) => Promise<AddressTxsPage>;
      actions: MachineActions;
    },
  ) {}

  private state(): Promise<StateTrie> {
    return StateTrie.open(this.d.kv, this.d.view.head.stateRoot);
  }

  /** One task; with `forAddress`, the `actions` that address may send (modules/ai/actions.ts) from the next block. */
  task(id: string, forAddress?: Address): Promise<TaskView | undefined> {
    return this.view(id, undefined, forAddress);
  }

  private async view(id: string, s?: StateTrie, forAddress?: Address): Promise<TaskView | undefined> {
    const snap = await loadInstance(s ?? (await this.state()), taskDef, id);
    if (!snap) return undefined;
    const c = snap.context;
    const status = stateName(snap.value) as TaskStatus;
    const history = await historyOf(this.d.store, taskDef.name, id);
    const deadlines = {
      commitEnds: c.commitEnds,
      revealEnds: c.revealEnds,
      bidEnds: c.bidEnds,
      expiresAt: c.expiresAt,
      challengeEnds: c.challengeEnds,
      verdictEnds: c.verdictEnds,
    };
    const n = NEXT[status];
    const at = n ? deadlines[n[0]] : null;
    const head = this.d.view.head.height;
    const sorted = <V>(o: Record<Address, V>) => (Object.keys(o) as Address[]).sort().map((a) => [a, o[a]] as const);
    return {
      id: id as Hex,
      status,
      mode: c.mode,
      aggregate: c.aggregate,
      requester: c.requester,
      prompt: c.prompt,
      reward: c.reward,
      price: c.price,
      quorum: c.quorum,
      oracle: c.oracle,
      createdAt: c.createdAt,
      deadlines,
      next: n && at !== null ? { height: at, inBlocks: Math.max(0, at - head), what: n[1] } : null,
      commits: sorted(c.commits).map(([oracle, v]) => ({ oracle, ...v })),
      reveals: sorted(c.reveals).map(([oracle, v]) => ({ oracle, ...v })),
      bids: sorted(c.bids).map(([oracle, v]) => ({ oracle, ...v })),
      verdicts: sorted(c.verdicts).map(([juror, verdict]) => ({ juror, verdict })),
      result: c.result,
      winners: c.winners,
      decidedAt: c.decidedAt,
      challenger: c.challenger,
      bond: c.bond,
      history,
      updatedAt: history.length ? history[history.length - 1].height : c.createdAt,
      ...(forAddress ? await actionsView(this.d.actions, taskDef.name, id, forAddress) : {}),
    };
  }

  /**
   * Without `since`: the tasks changed most recently, filtered. With `since`: the transitions
   * after it (whole blocks, oldest first, up to the finalized height with `final`) and the
   * tasks they touched, filtered; `cursor` is the last height covered.
   */
  async tasks(q: TaskQuery): Promise<TasksPage> {
    const head = this.d.view.head;
    const limit = q.limit ?? 100;
    const s = await this.state();
    const top = q.final ? head.finalizedHeight : head.height;
    const match = (t: TaskView) => (!q.status || t.status === q.status) && (!q.mode || t.mode === q.mode);
    const matchCtx = async (t: TaskView) => {
      if (!match(t)) return false;
      if (!q.oracle) return true;
      const snap = await loadInstance(s, taskDef, t.id);
      return snap !== undefined && involves(snap.context, q.oracle);
    };
    if (q.since === undefined) {
      const out: TaskView[] = [];
      for (const id of await recentIds(this.d.store, taskDef.name)) {
        const t = await this.view(id, s);
        if (t && (await matchCtx(t))) out.push(t);
        if (out.length >= limit) break;
      }
      return { tasks: out, cursor: head.height, finalizedHeight: head.finalizedHeight, height: head.height };
    }
    const { feed, cursor } = await feedPage(this.d.store, taskDef.name, q.since, limit, top);
    const tasks: TaskView[] = [];
    const kept = new Set<string>();
    for (const id of new Set(feed.map((e) => e.id))) {
      const t = await this.view(id, s);
      if (t && (await matchCtx(t))) {
        tasks.push(t);
        kept.add(id);
      }
    }
    const transitions: TaskTransition[] = feed
      .filter((e) => kept.has(e.id))
      .map(({ id, from, to, event, height }) => ({ id: id as Hex, from, to, event, height }));
    return { tasks, transitions, cursor, finalizedHeight: head.finalizedHeight, height: head.height };
  }

  async oracles(): Promise<OraclesView> {
    const s = await this.state();
    const p = await loadParams(s);
    const head = this.d.view.head;
    const out: OracleView[] = [];
    for (const a of await getOracleList(s)) {
      const o = (await getOracle(s, a))!;
      out.push(await this.oracleView(o, dutyRefusal(o, a, p)?.reason));
    }
    return {
      height: head.height,
      finalizedHeight: head.finalizedHeight,
      minStake: p.MIN_ORACLE_STAKE.toString(),
      minReputation: -Number(p.AI_MIN_REPUTATION),
      oracles: out,
      rules:
        'a duty (AI_COMMIT, AI_BID, AI_VERDICT, being designated or awarded) needs stake >= MIN_ORACLE_STAKE ' +
        'and reputation >= -AI_MIN_REPUTATION; ' +
        'reputation: +1 per settled win, -1 per losing reveal, -2 per missed duty, -5 per overturned result ' +
        '(which also slashes ORACLE_SLASH_BPS of the stake to the challenger)',
    };
  }

  private async oracleView(o: OracleRecord, refused: string | undefined): Promise<OracleView> {
    const recent = await this.d.addressTxs(o.address, 1_000);
    const late = recent.txs.filter((t) => t.from === o.address && t.result?.code === LATE).length;
    return {
      ...o,
      native: toNative(o.address),
      status: o.leftAt !== null ? 'left' : refused ? 'ineligible' : 'active',
      why: o.leftAt !== null ? null : (refused ?? null),
      late,
    };
  }
}
