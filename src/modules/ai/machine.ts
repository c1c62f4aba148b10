import { assign, setup } from 'xstate';
import { defineMachine, effect, holds, type DeadlineEvent, type Rule, statusesOf } from '../../machines/define';
import type { Hex } from '../../primitives/hex';
import type { Address } from '../../protocol/types';
import { decide, split, type Aggregate, type Decision } from './aggregate';
import { bindOracle, payFromEscrow, scoreOracles, slashOracles } from './effects';
import type { OracleScore } from './oracles';
import { AI } from './errors';
import type { Refusal } from '../../protocol/refusal';

/**
 * The AI task (docs/PROTOCOL.md "AI tasks"), an on-chain machine. Its state names are the
 * `status` words of /ai/tasks:
 *
 *   quorum:     COMMIT ──DEADLINE──► REVEAL ──DEADLINE (decided)──► CHALLENGE ──AI_CLAIM──► DONE
 *   designated: PENDING ──AI_RESULT──► CHALLENGE                     │
 *   auction:    BIDDING ──AI_AWARD / DEADLINE──► PENDING             └─AI_CHALLENGE─► DISPUTED ──DEADLINE──►
 *                                                                                       UPHELD | OVERTURNED
 *   nothing decided in its window (too few commits or reveals, a tie, no result, no bid):
 *     ──► EXPIRED ──AI_REFUND──► REFUNDED
 *
 * Commits, reveals, bids and verdicts are context steps; phases change only at a block's end
 * (the tick) or by a transaction of the party the phase waits for, so the outcome never depends
 * on the order of transactions within a block. A full commit list or a complete set of reveals
 * closes its window at the end of the block it happened in. Windows are the chain's governable
 * values when the task was made, kept in its context.
 */
export type TaskMode = 'quorum' | 'designated' | 'auction';

export interface TaskWindows {
  commit: number;
  reveal: number;
  bid: number;
  expiry: number;
  challenge: number;
  verdict: number;
}

export interface TaskInput {
  requester: Address;
  prompt: string;
  mode: TaskMode;
  aggregate: Aggregate;
  /** Escrowed reward, base units. */
  reward: string;
  quorum: number | null;
  /** The designated oracle (designated mode). */
  oracle: Address | null;
  createdAt: number;
  windows: TaskWindows;
  maxCommitters: number;
  maxJurors: number;
}

export interface TaskContext extends TaskInput {
  commitEnds: number | null;
  revealEnds: number | null;
  bidEnds: number | null;
  expiresAt: number | null;
  challengeEnds: number | null;
  /**
   * The height at whose end the current state's window closes without a move of its own (the
   * challenge window, then AI_CLAIM may settle): the tick marks it with a DEADLINE step, so a
   * follower of the feed sees the window end; null once marked (or in no such window).
   */
  windowCloses: number | null;
  verdictEnds: number | null;
  commits: Record<Address, { commit: Hex; height: number }>;
  reveals: Record<Address, { output: string; height: number }>;
  bids: Record<Address, { price: string; height: number }>;
  /** What the awarded oracle is paid (auction); the rest of the reward went back at the award. */
  price: string | null;
  result: string | null;
  winners: Address[];
  decidedAt: number | null;
  challenger: Address | null;
  bond: string | null;
  verdicts: Record<Address, 'uphold' | 'overturn'>;
}

export type TaskEvent =
  | { type: 'COMMIT'; oracle: Address; commit: Hex; height: number }
  | { type: 'REVEAL'; oracle: Address; output: string; height: number }
  | { type: 'BID'; oracle: Address; price: string; height: number }
  | { type: 'AWARD'; oracle: Address; by: Address; height: number }
  | { type: 'RESULT'; oracle: Address; output: string; height: number }
  | { type: 'CHALLENGE'; challenger: Address; bond: string; height: number }
  | { type: 'VERDICT'; juror: Address; verdict: 'uphold' | 'overturn' }
  | { type: 'CLAIM'; height: number }
  | { type: 'REFUND' }
  | DeadlineEvent;

export const TASK_STATES = [
  'COMMIT',
  'REVEAL',
  'BIDDING',
  'PENDING',
  'CHALLENGE',
  'DISPUTED',
  'DONE',
  'UPHELD',
  'OVERTURNED',
  'EXPIRED',
  'REFUNDED',
] as const;
export type TaskStatus = (typeof TASK_STATES)[number];
export const TASK_MODES: readonly TaskMode[] = ['quorum', 'designated', 'auction'];

type Ev<T extends TaskEvent['type']> = Extract<TaskEvent, { type: T }>;
type Args = { context: TaskContext; event: TaskEvent };
const ev = <T extends TaskEvent['type']>(e: TaskEvent) => e as Ev<T>;
const h = (e: TaskEvent) => (e as { height: number }).height;
const keys = (o: Record<Address, unknown>): Address[] => (Object.keys(o) as Address[]).sort();

// ---- the rules: each is a guard below and, when the task refuses an event, its reason -------

type R<T extends TaskEvent['type']> = Rule<TaskContext, Ev<T>>;
type Where = { task: string; status: string; want: TaskStatus };
/** A status rule: refuses unless the task is in `want`, saying where it is instead (and why that matters). */
const inStatus =
  <T extends TaskEvent['type']>(want: TaskStatus, why: (c: TaskContext, e: Ev<T>, where: Where) => Refusal): R<T> =>
  (c, e, task, status) =>
    status === want ? undefined : why(c, e, { task, status, want });

/** Who is a party to a task (and so may not judge it): requester, oracles, challenger. */
export const partiesOf = (c: TaskContext): Address[] => [
  c.requester,
  ...(c.oracle ? [c.oracle] : []),
  ...(Object.keys(c.commits) as Address[]),
  ...(c.challenger ? [c.challenger] : []),
];

const quorumOnly =
  (takes: string): R<'COMMIT' | 'REVEAL'> =>
  (c, _e, task) =>
    c.mode !== 'quorum' ? AI.AI_WRONG_MODE({ task, mode: 'quorum', takes }) : undefined;
const notRequester: R<'COMMIT'> = (c, e) =>
  e.oracle === c.requester ? AI.AI_OWN_TASK({ doing: 'answer' }) : undefined;
const notCommitted: R<'COMMIT'> = (c, e, task) =>
  e.oracle in c.commits ? AI.AI_ALREADY_COMMITTED({ task, oracle: e.oracle }) : undefined;
const commitSeat: R<'COMMIT'> = (c, _e, task) =>
  keys(c.commits).length >= c.maxCommitters
    ? AI.AI_SEATS_TAKEN({ task, seats: c.maxCommitters, of: 'commit' })
    : undefined;
const notStillCommitting: R<'REVEAL'> = (c, _e, task, status) =>
  status === 'COMMIT' ? AI.AI_STILL_COMMITTING({ task, commitEnds: c.commitEnds }) : undefined;
const committed: R<'REVEAL'> = (c, e, task) =>
  e.oracle in c.commits ? undefined : AI.AI_NOT_COMMITTED({ task, oracle: e.oracle });
const notRevealed: R<'REVEAL'> = (c, e, task) =>
  e.oracle in c.reveals ? AI.AI_ALREADY_REVEALED({ task, oracle: e.oracle }) : undefined;
const auctionOnly: R<'BID'> = (c, _e, task) =>
  c.mode !== 'auction' ? AI.AI_WRONG_MODE({ task, mode: 'auction', takes: 'bids' }) : undefined;
const notRequesterBid: R<'BID'> = (c, e) => (e.oracle === c.requester ? AI.AI_OWN_TASK({ doing: 'bid' }) : undefined);
const withinReward: R<'BID'> = (c, e) =>
  BigInt(e.price) > BigInt(c.reward) ? AI.AI_PRICE_ABOVE_REWARD({ price: e.price, reward: c.reward }) : undefined;
const bidSeat: R<'BID'> = (c, e, task) =>
  !(e.oracle in c.bids) && keys(c.bids).length >= c.maxCommitters
    ? AI.AI_SEATS_TAKEN({ task, seats: c.maxCommitters, of: 'bid' })
    : undefined;
const awardInAuction: R<'AWARD'> = (c, _e, task) =>
  c.mode !== 'auction' ? AI.AI_WRONG_MODE({ task, mode: 'auction', takes: 'awards' }) : undefined;
const byRequester: R<'AWARD'> = (c, e, task) =>
  e.by !== c.requester ? AI.AI_NOT_REQUESTER({ task, requester: c.requester }) : undefined;
const toBidder: R<'AWARD'> = (c, e, task) =>
  e.oracle in c.bids ? undefined : AI.AI_NO_BID({ task, oracle: e.oracle });
const notQuorum: R<'RESULT'> = (c, _e, task) => (c.mode === 'quorum' ? AI.AI_QUORUM_TASK({ task }) : undefined);
const toAssigned: R<'RESULT'> = (c, e, task) =>
  e.oracle === c.oracle ? undefined : AI.AI_NOT_ASSIGNED({ task, assigned: c.oracle, oracle: e.oracle });
const challengeOpen: R<'CHALLENGE'> = (c, e, task) =>
  e.height > c.challengeEnds! ? AI.AI_CHALLENGE_CLOSED({ task, closedAt: c.challengeEnds }) : undefined;
const notOwnAnswer: R<'CHALLENGE'> = (c, e) => (c.winners.includes(e.challenger) ? AI.AI_OWN_ANSWER() : undefined);
const notParty: R<'VERDICT'> = (c, e, task) =>
  partiesOf(c).includes(e.juror) ? AI.AI_PARTY({ task, juror: e.juror }) : undefined;
const notVoted: R<'VERDICT'> = (c, e, task) =>
  e.juror in c.verdicts ? AI.AI_ALREADY_JUDGED({ task, juror: e.juror }) : undefined;
const juryOpen: R<'VERDICT'> = (c, _e, task) =>
  keys(c.verdicts).length >= c.maxJurors ? AI.AI_JURY_FULL({ task, jurors: c.maxJurors }) : undefined;
const challengeOver: R<'CLAIM'> = (c, e, task) =>
  e.height <= c.challengeEnds! ? AI.AI_CHALLENGE_OPEN({ task, challengeEnds: c.challengeEnds }) : undefined;

/** Each event's rules in the order their reasons are given (the order the handlers gave them in). */
const taskRules = {
  COMMIT: [
    quorumOnly('commits'),
    inStatus<'COMMIT'>('COMMIT', (c, _e, w) => AI.AI_WINDOW_CLOSED({ ...w, window: 'commit', closedAt: c.commitEnds })),
    notRequester,
    notCommitted,
    commitSeat,
  ],
  REVEAL: [
    quorumOnly('reveals'),
    notStillCommitting,
    inStatus<'REVEAL'>('REVEAL', (c, _e, w) => AI.AI_WINDOW_CLOSED({ ...w, window: 'reveal', closedAt: c.revealEnds })),
    committed,
    notRevealed,
  ],
  BID: [
    auctionOnly,
    inStatus<'BID'>('BIDDING', (c, _e, w) => AI.AI_WINDOW_CLOSED({ ...w, window: 'bidding', closedAt: c.bidEnds })),
    notRequesterBid,
    withinReward,
    bidSeat,
  ],
  AWARD: [awardInAuction, byRequester, inStatus<'AWARD'>('BIDDING', (_c, _e, w) => AI.AI_ALREADY_AWARDED(w)), toBidder],
  RESULT: [
    notQuorum,
    inStatus<'RESULT'>('PENDING', (c, e, w) =>
      c.expiresAt !== null && e.height > c.expiresAt
        ? AI.AI_WINDOW_CLOSED({ ...w, window: 'result', closedAt: c.expiresAt })
        : AI.AI_NO_RESULT_NOW(w),
    ),
    toAssigned,
  ],
  CHALLENGE: [
    inStatus<'CHALLENGE'>('CHALLENGE', (_c, _e, w) => AI.AI_NOT_CHALLENGEABLE(w)),
    challengeOpen,
    notOwnAnswer,
  ],
  VERDICT: [inStatus<'VERDICT'>('DISPUTED', (_c, _e, w) => AI.AI_NOT_DISPUTED(w)), notParty, notVoted, juryOpen],
  CLAIM: [inStatus<'CLAIM'>('CHALLENGE', (_c, _e, w) => AI.AI_NOT_CLAIMABLE(w)), challengeOver],
  REFUND: [inStatus<'REFUND'>('EXPIRED', (_c, _e, w) => AI.AI_NOT_EXPIRED(w))],
};

/** What the task pays for its answer: the award price in an auction, else the whole reward. */
export const payable = (c: TaskContext): bigint => BigInt(c.price ?? c.reward);

/** The quorum decision over the reveals so far (pure; readers show it live). */
export const decision = (c: TaskContext): Decision | null =>
  decide(
    Object.fromEntries(keys(c.reveals).map((o) => [o, c.reveals[o].output])) as Record<Address, string>,
    c.quorum ?? Infinity,
    c.aggregate,
  );

/** The best bid: lowest price, then earliest height, then address. */
export const bestBid = (c: TaskContext): Address | null =>
  keys(c.bids).sort((a, b) => {
    const d = BigInt(c.bids[a].price) - BigInt(c.bids[b].price);
    return d < 0n ? -1 : d > 0n ? 1 : c.bids[a].height - c.bids[b].height || (a < b ? -1 : 1);
  })[0] ?? null;

const overturned = (c: TaskContext) => {
  const v = Object.values(c.verdicts);
  return v.filter((x) => x === 'overturn').length > v.filter((x) => x === 'uphold').length;
};

/** Scores at the quorum decision: losing reveals −1, committed and never revealed −2 (missed); their duties end. */
const quorumScores = (c: TaskContext, d: Decision | null): OracleScore[] =>
  keys(c.commits).flatMap((o): OracleScore[] => {
    if (!(o in c.reveals)) return [{ oracle: o, missed: 1, reputation: -2, release: 1 }];
    if (d?.winners.includes(o)) return [];
    return d ? [{ oracle: o, failed: 1, reputation: -1, release: 1 }] : [{ oracle: o, reputation: 0, release: 1 }];
  });

/**
 * The assigners of an award to the oracle `pick` names (setup's actions hold only effects, so both award transitions
 * inline them).
 */
const awardTo = (pick: (a: Args) => Address) => ({
  oracle: (a: Args) => pick(a),
  price: (a: Args) => a.context.bids[pick(a)].price,
  expiresAt: (a: Args) => h(a.event) + a.context.windows.expiry,
});
/** What goes back to the requester at an award: the reward above the winning price. */
const awardRefund = (c: TaskContext, oracle: Address) => ({
  payments: split(BigInt(c.reward) - BigInt(c.bids[oracle].price), [], c.requester),
});
const awarded = (a: Args) => ev<'AWARD'>(a.event).oracle;
const best = (a: Args) => bestBid(a.context)!;

const settleWin = [
  {
    type: 'pay' as const,
    params: ({ context }: Args) => ({ payments: split(payable(context), context.winners, context.requester) }),
  },
  {
    type: 'score' as const,
    params: ({ context }: Args) => ({
      scores: context.winners.map((o) => ({ oracle: o, completed: 1, reputation: 1, release: 1 })),
    }),
  },
];

export const taskMachine = setup({
  types: { context: {} as TaskContext, events: {} as TaskEvent, input: {} as TaskInput },
  actions: {
    bind: effect<{ oracle: Address }>(),
    pay: effect<{ payments: { to: Address; amount: string }[] }>(),
    score: effect<{ scores: OracleScore[] }>(),
    slash: effect<{ oracles: Address[]; to: Address }>(),
  },
  guards: {
    quorumMode: ({ context }) => context.mode === 'quorum',
    auctionMode: ({ context }) => context.mode === 'auction',
    canCommit: holds(notRequester, notCommitted, commitSeat),
    canReveal: holds(committed, notRevealed),
    enoughCommits: ({ context }) => keys(context.commits).length >= (context.quorum ?? Infinity),
    decided: ({ context }) => decision(context) !== null,
    canBid: holds(notRequesterBid, withinReward, bidSeat),
    bidder: holds(byRequester, toBidder),
    hasBids: ({ context }) => keys(context.bids).length > 0,
    assigned: holds(toAssigned),
    challengeOpen: holds(challengeOpen, notOwnAnswer),
    challengeOver: holds(challengeOver),
    canVote: holds(notParty, notVoted, juryOpen),
    overturned: ({ context }) => overturned(context),
  },
}).createMachine({
  id: 'aiTask',
  initial: 'OPEN',
  context: ({ input }) => ({
    ...input,
    commitEnds: input.mode === 'quorum' ? input.createdAt + input.windows.commit : null,
    revealEnds: null,
    bidEnds: input.mode === 'auction' ? input.createdAt + input.windows.bid : null,
    expiresAt: input.mode === 'designated' ? input.createdAt + input.windows.expiry : null,
    challengeEnds: null,
    verdictEnds: null,
    windowCloses: null,
    commits: {},
    reveals: {},
    bids: {},
    price: null,
    result: null,
    winners: [],
    decidedAt: null,
    challenger: null,
    bond: null,
    verdicts: {},
  }),
  states: {
    // Transient: the mode picks the first phase (no history entry of its own).
    OPEN: {
      always: [
        { guard: 'quorumMode', target: 'COMMIT' },
        { guard: 'auctionMode', target: 'BIDDING' },
        { target: 'PENDING', actions: { type: 'bind', params: ({ context }) => ({ oracle: context.oracle! }) } },
      ],
    },
    COMMIT: {
      on: {
        COMMIT: {
          guard: 'canCommit',
          actions: [
            assign({
              commits: ({ context, event }) => ({
                ...context.commits,
                [ev<'COMMIT'>(event).oracle]: { commit: ev<'COMMIT'>(event).commit, height: h(event) },
              }),
              // The last seat taken closes the window at the end of this block.
              commitEnds: ({ context, event }) =>
                keys(context.commits).length + 1 >= context.maxCommitters ? h(event) : context.commitEnds,
            }),
            { type: 'bind', params: ({ event }) => ({ oracle: ev<'COMMIT'>(event).oracle }) },
          ],
        },
        DEADLINE: [
          {
            guard: 'enoughCommits',
            target: 'REVEAL',
            actions: assign({ revealEnds: ({ context, event }) => h(event) + context.windows.reveal }),
          },
          // Too few commits: nobody had a chance to reveal, so the committers' duties just end.
          {
            target: 'EXPIRED',
            actions: {
              type: 'score',
              params: ({ context }) => ({
                scores: keys(context.commits).map((o) => ({ oracle: o, reputation: 0, release: 1 })),
              }),
            },
          },
        ],
      },
    },
    REVEAL: {
      on: {
        REVEAL: {
          guard: 'canReveal',
          actions: assign({
            reveals: ({ context, event }) => ({
              ...context.reveals,
              [ev<'REVEAL'>(event).oracle]: { output: ev<'REVEAL'>(event).output, height: h(event) },
            }),
            // Every committer revealed: decide at the end of this block.
            revealEnds: ({ context, event }) =>
              keys(context.reveals).length + 1 >= keys(context.commits).length ? h(event) : context.revealEnds,
          }),
        },
        DEADLINE: [
          {
            guard: 'decided',
            target: 'CHALLENGE',
            actions: [
              { type: 'score', params: ({ context }) => ({ scores: quorumScores(context, decision(context)) }) },
              assign({
                result: ({ context }) => decision(context)!.result,
                winners: ({ context }) => decision(context)!.winners,
                decidedAt: ({ event }) => h(event),
                challengeEnds: ({ context, event }) => h(event) + context.windows.challenge,
                windowCloses: ({ context, event }) => h(event) + context.windows.challenge,
              }),
            ],
          },
          {
            target: 'EXPIRED',
            actions: { type: 'score', params: ({ context }) => ({ scores: quorumScores(context, null) }) },
          },
        ],
      },
    },
    BIDDING: {
      on: {
        BID: {
          guard: 'canBid',
          actions: assign({
            bids: ({ context, event }) => ({
              ...context.bids,
              [ev<'BID'>(event).oracle]: { price: ev<'BID'>(event).price, height: h(event) },
            }),
          }),
        },
        AWARD: {
          guard: 'bidder',
          target: 'PENDING',
          actions: [
            assign(awardTo(awarded)),
            { type: 'bind', params: (a) => ({ oracle: awarded(a) }) },
            { type: 'pay', params: (a) => awardRefund(a.context, awarded(a)) },
          ],
        },
        DEADLINE: [
          {
            guard: 'hasBids',
            target: 'PENDING',
            actions: [
              assign(awardTo(best)),
              { type: 'bind', params: (a) => ({ oracle: best(a) }) },
              { type: 'pay', params: (a) => awardRefund(a.context, best(a)) },
            ],
          },
          { target: 'EXPIRED' },
        ],
      },
    },
    PENDING: {
      on: {
        RESULT: {
          guard: 'assigned',
          target: 'CHALLENGE',
          actions: assign({
            result: ({ event }) => ev<'RESULT'>(event).output,
            winners: ({ event }) => [ev<'RESULT'>(event).oracle],
            decidedAt: ({ event }) => h(event),
            challengeEnds: ({ context, event }) => h(event) + context.windows.challenge,
            windowCloses: ({ context, event }) => h(event) + context.windows.challenge,
          }),
        },
        DEADLINE: {
          target: 'EXPIRED',
          actions: {
            type: 'score',
            params: ({ context }) => ({ scores: [{ oracle: context.oracle!, missed: 1, reputation: -2, release: 1 }] }),
          },
        },
      },
    },
    CHALLENGE: {
      on: {
        CHALLENGE: {
          guard: 'challengeOpen',
          target: 'DISPUTED',
          actions: assign({
            challenger: ({ event }) => ev<'CHALLENGE'>(event).challenger,
            bond: ({ event }) => ev<'CHALLENGE'>(event).bond,
            verdictEnds: ({ context, event }) => h(event) + context.windows.verdict,
            windowCloses: null,
          }),
        },
        CLAIM: { guard: 'challengeOver', target: 'DONE', actions: settleWin },
        // The challenge window's end: a step in the feed at its last height (claims open after it).
        DEADLINE: { actions: assign({ windowCloses: null }) },
      },
    },
    DISPUTED: {
      on: {
        VERDICT: {
          guard: 'canVote',
          actions: assign({
            verdicts: ({ context, event }) => ({
              ...context.verdicts,
              [ev<'VERDICT'>(event).juror]: ev<'VERDICT'>(event).verdict,
            }),
          }),
        },
        DEADLINE: [
          {
            guard: 'overturned',
            target: 'OVERTURNED',
            actions: [
              {
                type: 'pay',
                params: ({ context }) => ({
                  payments: [
                    ...split(payable(context), [], context.requester),
                    ...split(BigInt(context.bond!), [], context.challenger!),
                  ],
                }),
              },
              { type: 'slash', params: ({ context }) => ({ oracles: context.winners, to: context.challenger! }) },
              {
                type: 'score',
                params: ({ context }) => ({
                  scores: context.winners.map((o) => ({ oracle: o, failed: 1, reputation: -5, release: 1 })),
                }),
              },
            ],
          },
          {
            target: 'UPHELD',
            actions: [
              ...settleWin,
              {
                type: 'pay',
                params: ({ context }) => ({
                  payments: split(BigInt(context.bond!), context.winners, context.challenger!),
                }),
              },
            ],
          },
        ],
      },
    },
    EXPIRED: {
      on: {
        REFUND: {
          target: 'REFUNDED',
          actions: {
            type: 'pay',
            params: ({ context }) => ({ payments: split(payable(context), [], context.requester) }),
          },
        },
      },
    },
    DONE: { type: 'final' },
    UPHELD: { type: 'final' },
    OVERTURNED: { type: 'final' },
    REFUNDED: { type: 'final' },
  },
});

// The status words above are the machine's states (checked when this module loads).
statusesOf(taskMachine, TASK_STATES, ['OPEN']);

export const taskDef = defineMachine({
  name: 'aiTask',
  version: 2, // 2: windowCloses (the challenge window's end is a DEADLINE step)
  machine: taskMachine,
  deadlines: {
    COMMIT: 'commitEnds',
    REVEAL: 'revealEnds',
    BIDDING: 'bidEnds',
    PENDING: 'expiresAt',
    CHALLENGE: 'windowCloses',
    DISPUTED: 'verdictEnds',
  },
  effects: {
    bind: async ({ state }, { oracle }) => bindOracle(state, oracle),
    pay: async ({ state, height }, { payments }) => payFromEscrow(state, payments, height),
    score: async ({ state }, { scores }) => scoreOracles(state, scores),
    slash: async ({ state, height, id }, { oracles, to }) => slashOracles(state, oracles, to, id, height),
  },
  rules: taskRules,
  summary: (s) => ({
    commits: String(Object.keys(s.context.commits).length),
    reveals: String(Object.keys(s.context.reveals).length),
    bids: String(Object.keys(s.context.bids).length),
    verdicts: String(Object.keys(s.context.verdicts).length),
  }),
});
