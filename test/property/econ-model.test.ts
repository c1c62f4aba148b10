import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { proposalMachine } from '../../src/modules/governance/machine';
import { getCandidate, getCandidates, getVoter } from '../../src/modules/staking';
import { loadSupply } from '../../src/protocol/execState';
import type { ChainEvent } from '../../src/protocol/events';
import {
  GOV_ESCROW_ADDRESS,
  REWARD_POOL_ADDRESS,
  TREASURY_ADDRESS,
  UNBONDING_ADDRESS,
  VESTING_ESCROW_ADDRESS,
  CHAIN_ID,
} from '../../src/protocol/params';
import type { Address, SignedTx, TxType } from '../../src/protocol/types';
import { COIN } from '../../src/primitives/amount';
import type { Hex } from '../../src/primitives/hex';
import { envelope, validate } from '../helpers/assetHarness';
import { MemChain } from '../helpers/memChain';
import { addr, SHORT_WINDOWS } from '../helpers/econWorld';
import { legalMoves } from '../helpers/machineWalk';
import { runModel, type Outcomes } from '../helpers/modelRunner';

/**
 * Model test (fc.commands) of the economic and governance types: random sequences of STAKE,
 * UNSTAKE, VOTE, SET_COMMISSION, CLAIM_VOTER_REWARD, GOV_PROPOSE, GOV_VOTE, DELEGATE_RESOURCE,
 * UNDELEGATE_RESOURCE, VESTING_CREATE, VESTING_CLAIM, TRANSFER and empty
 * blocks run against the real execution (applyTx + finishBlock, committed block by block).
 * Each command is one block. The model keeps what the rules say must hold whatever the
 * outcome of each transaction, and after every block the test checks:
 * - supply = genesis + minted − burned, and Σ (balance + staked) over every account = supply;
 * - the staked counter = Σ staked; lent stake ≤ own stake and Σ lent = Σ borrowed; every voter's allocation ≤ its stake
 *   and = Σ its votes;
 *   every candidate's received votes = Σ of the votes allocated to it;
 * - nonces: each sender's nonce grows by exactly one per included transaction, never back;
 * - every proposal transition is a legal move of the proposal machine (its graph);
 * and at the end that a second, independent execution of the same blocks gives the same
 * state root at every height.
 */

const USERS = [addr(0xa1), addr(0xa2), addr(0xa3), addr(0xa4)];
const V0 = addr(0x1000);
const SYSTEM = [REWARD_POOL_ADDRESS, TREASURY_ADDRESS, UNBONDING_ADDRESS, GOV_ESCROW_ADDRESS, VESTING_ESCROW_ADDRESS];
const ALL = [...USERS, V0, ...SYSTEM];
const FUNDS = 10_000n * COIN;
const GENESIS = {
  chainId: CHAIN_ID,
  timestamp: 1,
  params: { ...SHORT_WINDOWS, MIN_CANDIDATE_STAKE: String(1_000n * COIN), GOV_DEPOSIT: String(10n * COIN) },
  accounts: [
    ...USERS.map((address) => ({ address, balance: String(FUNDS) })),
    { address: V0, balance: String(FUNDS), staked: String(2_000n * COIN), isValidator: true },
  ],
};
const LEGAL = legalMoves(proposalMachine);
const GENESIS_SUPPLY = 5n * FUNDS + 2_000n * COIN;

interface Chain {
  chain: MemChain;
  /** Every block's included transactions, to replay. */
  blocks: SignedTx[][];
  /** Included transactions by type and status, and proposal states reached (the run's; a replay counts nothing). */
  outcomes?: Outcomes;
}

interface Model {
  nonces: Map<Address, number>;
  proposals: Hex[];
  vestings: Hex[];
  /** (lender, receiver) pairs of included delegations (UNDELEGATE picks among them). */
  delegations: [Address, Address][];
  /** The last status of each proposal seen in transitions. */
  status: Map<string, string>;
}

async function newChain(outcomes?: Outcomes): Promise<Chain> {
  return { chain: await MemChain.open(GENESIS, V0), blocks: [], outcomes };
}

/** One block: the transactions that pass admission and apply, then the end of block; commits. */
async function runBlock(c: Chain, txs: SignedTx[]): Promise<{ included: SignedTx[]; events: ChainEvent[] }> {
  const included: SignedTx[] = [];
  for (const tx of txs) {
    if (validate(tx) !== undefined) continue; // admission refuses it: never in a block
    const v = await c.chain.apply(tx);
    if (v.kind !== 'applied') continue;
    c.outcomes?.count(`${tx.type} ${v.result.status}`);
    included.push(tx);
  }
  const events = await c.chain.seal();
  c.blocks.push(included);
  return { included, events };
}

async function checkInvariants(c: Chain, m: Model, included: SignedTx[], events: ChainEvent[]): Promise<void> {
  const state = c.chain.state;
  const s = await loadSupply(state);
  expect(s.supply).toBe(GENESIS_SUPPLY + s.minted - s.burned);
  let total = 0n;
  let staked = 0n;
  let lent = 0n;
  let borrowed = 0n;
  for (const a of ALL) {
    const acc = await state.getAccount(a);
    if (!acc) continue;
    total += acc.balance + acc.staked;
    staked += acc.staked;
    expect(acc.delegatedOut <= acc.staked, `${a} lends more than its stake`).toBe(true);
    lent += acc.delegatedOut;
    borrowed += acc.delegatedIn;
  }
  expect(lent).toBe(borrowed);
  expect(total).toBe(s.supply);
  expect(staked).toBe(s.staked);

  const received = new Map<Address, bigint>();
  for (const a of [...USERS, V0]) {
    const v = await getVoter(state, a);
    let sum = 0n;
    for (const [cand, n] of Object.entries(v.votes)) {
      sum += BigInt(n);
      received.set(cand as Address, (received.get(cand as Address) ?? 0n) + BigInt(n));
    }
    expect(BigInt(v.total)).toBe(sum);
    expect(sum <= ((await state.getAccount(a))?.staked ?? 0n), `${a} votes beyond its stake`).toBe(true);
  }
  for (const cand of await getCandidates(state))
    expect(BigInt((await getCandidate(state, cand))!.received)).toBe(received.get(cand) ?? 0n);

  for (const tx of included) {
    const expected = (m.nonces.get(tx.from) ?? 0) + 1;
    m.nonces.set(tx.from, expected);
  }
  for (const a of [...USERS, V0]) expect((await state.getAccount(a))?.nonce ?? 0).toBe(m.nonces.get(a) ?? 0);

  for (const e of events) {
    if (e.kind !== 'machine.transition' || e.machine !== 'proposal') continue;
    if (e.from === '') expect(e.to).toBe('VOTING');
    else expect(LEGAL.has(`${e.from}>${e.to}`), `${e.from} -> ${e.to}`).toBe(true);
    if (e.from !== '') expect(m.status.get(e.id)).toBe(e.from);
    m.status.set(e.id, e.to);
    c.outcomes?.count(`proposal ${e.to}`);
  }
}

/** A command: one block holding the transactions `make` builds from the chain's nonces. */
class TxCommand implements fc.AsyncCommand<Model, Chain> {
  constructor(
    readonly label: string,
    readonly make: (
      nonce: (a: Address) => Promise<number>,
      m: Model,
    ) => { type: TxType; from: Address; to?: Address | null; amount?: string; data?: unknown }[],
  ) {}
  check = () => true;
  async run(m: Model, c: Chain): Promise<void> {
    const next = new Map<Address, number>();
    const nonce = async (a: Address) => {
      const n = next.get(a) ?? (await c.chain.state.getAccount(a))?.nonce ?? 0;
      next.set(a, n + 1);
      return n;
    };
    const txs: SignedTx[] = [];
    for (const t of this.make(nonce, m))
      txs.push(
        envelope(t.type, t.from, {
          to: t.to ?? null,
          amount: t.amount ?? '0',
          data: t.data ?? null,
          nonce: await nonce(t.from),
        }),
      );
    const { included, events } = await runBlock(c, txs);
    for (const tx of included) if (tx.type === 'GOV_PROPOSE') m.proposals.push(tx.id);
    for (const tx of included) if (tx.type === 'VESTING_CREATE') m.vestings.push(tx.id);
    for (const tx of included) if (tx.type === 'DELEGATE_RESOURCE') m.delegations.push([tx.from, tx.to!]);
    await checkInvariants(c, m, included, events);
  }
  toString = () => this.label;
}

const user = fc.nat(USERS.length - 1).map((i) => USERS[i]);
const anyone = fc.oneof(user, fc.constant(V0));
const coins = fc.oneof(
  fc.integer({ min: 1, max: 1500 }).map((n) => BigInt(n) * COIN),
  fc.bigInt({ min: 1n, max: 10n ** 7n }),
);
const PARAMS = ['MAX_VALIDATORS', 'BANK_SIZE', 'BLOCK_REWARD', 'EPOCH_BLOCKS', 'MIN_CANDIDATE_STAKE'];

const commands = [
  fc
    .record({ from: anyone, amount: coins, candidate: fc.boolean() })
    .map(
      (a) =>
        new TxCommand(`STAKE ${a.from} ${a.amount}${a.candidate ? ' candidate' : ''}`, () => [
          { type: 'STAKE', from: a.from, amount: String(a.amount), data: a.candidate ? { candidate: true } : null },
        ]),
    ),
  fc
    .record({ from: anyone, amount: coins })
    .map(
      (a) =>
        new TxCommand(`UNSTAKE ${a.from} ${a.amount}`, () => [
          { type: 'UNSTAKE', from: a.from, amount: String(a.amount) },
        ]),
    ),
  fc
    .record({ from: anyone, votes: fc.array(fc.tuple(anyone, coins), { maxLength: 3 }) })
    .map(
      (a) =>
        new TxCommand(`VOTE ${a.from} ${a.votes.map(([t, n]) => `${t}=${n}`).join(',')}`, () => [
          { type: 'VOTE', from: a.from, data: { votes: Object.fromEntries(a.votes.map(([t, n]) => [t, String(n)])) } },
        ]),
    ),
  fc
    .record({ from: anyone, bps: fc.integer({ min: 0, max: 10_000 }) })
    .map(
      (a) =>
        new TxCommand(`SET_COMMISSION ${a.from} ${a.bps}`, () => [
          { type: 'SET_COMMISSION', from: a.from, data: { commission: a.bps } },
        ]),
    ),
  anyone.map((from) => new TxCommand(`CLAIM_VOTER_REWARD ${from}`, () => [{ type: 'CLAIM_VOTER_REWARD', from }])),
  fc
    .record({
      from: anyone,
      param: fc.constantFrom(...PARAMS),
      value: fc.integer({ min: 0, max: 12 }),
      spend: fc.option(coins),
      deposit: fc.constantFrom(10n * COIN, 9n * COIN, 20n * COIN),
    })
    .map(
      (a) =>
        new TxCommand(
          `GOV_PROPOSE ${a.from} ${a.spend !== null ? `spend ${a.spend}` : `${a.param}=${a.value}`}`,
          () => [
            {
              type: 'GOV_PROPOSE',
              from: a.from,
              amount: String(a.deposit),
              data:
                a.spend !== null
                  ? { spend: { to: USERS[0], amount: String(a.spend) } }
                  : { param: a.param, value: String(a.value) },
            },
          ],
        ),
    ),
  fc
    .record({
      voters: fc.array(anyone, { minLength: 1, maxLength: 3 }),
      which: fc.nat(),
      vote: fc.constantFrom('yes', 'no', 'abstain', 'veto'),
    })
    .map(
      (a) =>
        new TxCommand(`GOV_VOTE ${a.voters.join(',')} ${a.vote}`, (_n, m) =>
          m.proposals.length === 0
            ? []
            : [...new Set(a.voters)].map((from) => ({
                type: 'GOV_VOTE' as const,
                from,
                data: { proposalId: m.proposals[a.which % m.proposals.length], vote: a.vote },
              })),
        ),
    ),
  // The genesis validator's stake decides a vote alone: without it proposals would rarely pass or be vetoed.
  fc
    .constantFrom('yes', 'no', 'veto')
    .map(
      (vote) =>
        new TxCommand(`GOV_VOTE ${V0} ${vote} on the latest proposal`, (_n, m) =>
          m.proposals.length === 0
            ? []
            : [{ type: 'GOV_VOTE' as const, from: V0, data: { proposalId: m.proposals.at(-1)!, vote } }],
        ),
    ),
  fc
    .record({ from: anyone, to: anyone, amount: coins })
    .map(
      (a) =>
        new TxCommand(`TRANSFER ${a.from}→${a.to} ${a.amount}`, () => [
          { type: 'TRANSFER', from: a.from, to: a.to, amount: String(a.amount) },
        ]),
    ),
  fc
    .record({ from: anyone, to: anyone, amount: coins })
    .map(
      (a) =>
        new TxCommand(`DELEGATE_RESOURCE ${a.from}→${a.to} ${a.amount}`, () => [
          { type: 'DELEGATE_RESOURCE', from: a.from, to: a.to, data: { amount: String(a.amount) } },
        ]),
    ),
  fc.record({ which: fc.nat(), amount: coins }).map(
    (a) =>
      new TxCommand(`UNDELEGATE_RESOURCE #${a.which} ${a.amount}`, (_n, m) => {
        if (m.delegations.length === 0) return [];
        const [from, to] = m.delegations[a.which % m.delegations.length];
        return [{ type: 'UNDELEGATE_RESOURCE' as const, from, to, data: { amount: String(a.amount) } }];
      }),
  ),
  fc
    .record({
      from: anyone,
      to: anyone,
      amount: coins,
      duration: fc.integer({ min: 1, max: 8 }),
      cliff: fc.integer({ min: 0, max: 8 }),
    })
    .map(
      (a) =>
        new TxCommand(`VESTING_CREATE ${a.from}→${a.to} ${a.amount}`, () => [
          {
            type: 'VESTING_CREATE',
            from: a.from,
            to: a.to,
            amount: String(a.amount),
            data: { durationBlocks: a.duration, cliffBlocks: a.cliff },
          },
        ]),
    ),
  fc.record({ from: anyone, which: fc.nat() }).map(
    (a) =>
      new TxCommand(`VESTING_CLAIM ${a.from}`, (_n, m) =>
        m.vestings.length === 0
          ? []
          : [
              {
                type: 'VESTING_CLAIM' as const,
                from: a.from,
                data: { vestingId: m.vestings[a.which % m.vestings.length] },
              },
            ],
      ),
  ),
  fc.integer({ min: 1, max: 4 }).map((n) => new TxCommand(`${n} empty block(s)`, () => [])),
];

/** Replays the recorded blocks on a fresh chain: each includes the same transactions; returns the roots. */
async function replaySameBlocks({ blocks }: Chain): Promise<readonly Hex[]> {
  const other = await newChain();
  for (const txs of blocks) {
    const { included } = await runBlock(other, txs);
    expect(included.map((t) => t.id)).toEqual(txs.map((t) => t.id));
  }
  return other.chain.roots;
}

describe('economic and governance model (fc.commands)', () => {
  it('keeps supply, stake, votes, nonces and proposal states consistent; replays to the same roots', async () => {
    const outcomes = await runModel({
      inputs: fc.commands(commands, { maxCommands: 40, size: 'max' }),
      run: async (cmds, outcomes) => {
        const real = await newChain(outcomes);
        const model: Model = { nonces: new Map(), proposals: [], vestings: [], delegations: [], status: new Map() };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        return { ...real, roots: real.chain.roots };
      },
      replays: [{ name: 'the included transactions on a fresh chain', roots: (_, run) => replaySameBlocks(run) }],
      numRuns: Number(process.env.ECON_MODEL_RUNS ?? 100),
      // Sequences that only ever fail would prove little: each type must have succeeded somewhere.
      reach: [
        ...[
          'STAKE',
          'UNSTAKE',
          'VOTE',
          'SET_COMMISSION',
          'GOV_PROPOSE',
          'GOV_VOTE',
          'TRANSFER',
          'DELEGATE_RESOURCE',
          'UNDELEGATE_RESOURCE',
          'VESTING_CREATE',
          'VESTING_CLAIM',
        ].map((type) => `${type} success`),
        ...['QUEUED', 'EXPIRED', 'REJECTED'].map((status) => `proposal ${status}`),
      ],
    });
    if (process.env.ECON_DEBUG) console.log(outcomes.toJSON());
  }, 240_000);
});
