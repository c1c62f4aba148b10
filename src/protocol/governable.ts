import { COIN } from '../primitives/amount';
import { MAX_TXS_PER_BLOCK, VM_MAX_GAS } from './params';
import type { ExecState } from './execState';
import { RECORD_PREFIX } from './records';

/**
 * The governable parameters: one table, one record in consensus state, one accessor.
 * Genesis writes every value (its chain specification may override the defaults); a
 * GOV_PROPOSE parameter change that passes writes one. Execution reads them only through
 * `loadParams` / `paramOf`, so a voted value always takes effect.
 *
 * Values are non-negative integers (bigint): amounts in base units, fractions in basis
 * points (1/10,000), windows in blocks. No floats anywhere.
 */
export interface ParamSpec {
  /** The default of a chain specification that does not name it (long, production-like windows). */
  readonly default: bigint;
  readonly min: bigint;
  readonly max: bigint;
  readonly unit: 'base units' | 'basis points' | 'blocks' | 'count' | 'gas';
  readonly doc: string;
}

const coins = (n: bigint) => n * COIN;

export const PARAMS = {
  BLOCK_REWARD: {
    default: coins(1n),
    min: 0n,
    max: coins(1_000n),
    unit: 'base units',
    doc:
      "minted per block for its producer and the producer's voters " +
      '(commission to the producer, the rest to its voters)',
  },
  TREASURY_REWARD: {
    default: COIN / 4n,
    min: 0n,
    max: coins(1_000n),
    unit: 'base units',
    doc: "minted per block into the treasury (the treasury's share of issuance)",
  },
  MIN_CANDIDATE_STAKE: {
    default: coins(1_000n),
    min: 1n,
    max: coins(100_000_000n),
    unit: 'base units',
    doc: 'own stake a validator candidate must keep',
  },
  MAX_VALIDATORS: { default: 21n, min: 1n, max: 101n, unit: 'count', doc: 'size of the active set' },
  BANK_SIZE: {
    default: 6n,
    min: 0n,
    max: 100n,
    unit: 'count',
    doc: 'candidates kept in the standby bank behind the active set',
  },
  EPOCH_BLOCKS: {
    default: 1_200n,
    min: 1n,
    max: 1_000_000n,
    unit: 'blocks',
    doc: 'the active set is elected at heights that are multiples of this',
  },
  COMMISSION_DELAY_BLOCKS: {
    default: 2_400n,
    min: 0n,
    max: 1_000_000n,
    unit: 'blocks',
    doc: 'blocks before a SET_COMMISSION takes effect',
  },
  UNBONDING_BLOCKS: {
    default: 50_400n,
    min: 1n,
    max: 10_000_000n,
    unit: 'blocks',
    doc: 'blocks an UNSTAKE waits before the coins are liquid again',
  },
  MIN_ORACLE_STAKE: {
    default: coins(500n),
    min: 1n,
    max: coins(100_000_000n),
    unit: 'base units',
    doc: 'stake an oracle must lock (ORACLE_REGISTER)',
  },
  FEE_EXEMPT_STAKE: {
    default: coins(100_000n),
    min: 0n,
    max: coins(10_000_000_000n),
    unit: 'base units',
    doc: 'own stake from which an account burns no fees (0: nobody is exempt by stake)',
  },
  GOV_DEPOSIT: {
    default: coins(100n),
    min: 1n,
    max: coins(100_000_000n),
    unit: 'base units',
    doc: 'least deposit a GOV_PROPOSE locks (refunded unless the proposal is vetoed)',
  },
  GOV_QUORUM_BPS: {
    default: 3_340n,
    min: 1n,
    max: 10_000n,
    unit: 'basis points',
    doc: 'turnout (all votes, abstain included) a proposal needs, of staked coins',
  },
  GOV_THRESHOLD_BPS: {
    default: 5_000n,
    min: 1n,
    max: 10_000n,
    unit: 'basis points',
    doc: 'share of yes among yes + no + veto needed to pass (more than this)',
  },
  GOV_VETO_BPS: {
    default: 3_340n,
    min: 1n,
    max: 10_000n,
    unit: 'basis points',
    doc: 'share of veto among all votes above which a proposal is vetoed (its deposit goes to the treasury)',
  },
  GOV_VOTING_BLOCKS: {
    default: 100_800n,
    min: 1n,
    max: 10_000_000n,
    unit: 'blocks',
    doc: 'voting window, from the proposal block',
  },
  GOV_TIMELOCK_BLOCKS: {
    default: 14_400n,
    min: 1n,
    max: 10_000_000n,
    unit: 'blocks',
    doc: 'blocks between passing and execution',
  },
  JAIL_MISSED_ROUNDS: {
    default: 100n,
    min: 2n,
    max: 1_000_000n,
    unit: 'count',
    doc:
      'a scheduled validator that produced no block for this many rounds of the schedule ' +
      '(rounds × set size blocks) is jailed for downtime',
  },
  SLASH_DOUBLE_SIGN_BPS: {
    default: 500n,
    min: 0n,
    max: 10_000n,
    unit: 'basis points',
    doc:
      "share of a producer's own stake a SLASH_DOUBLE_SIGN takes to the treasury " +
      '(the producer is also jailed for good)',
  },
  ORACLE_UNBONDING_BLOCKS: {
    default: 50_400n,
    min: 1n,
    max: 10_000_000n,
    unit: 'blocks',
    doc: 'blocks an oracle that leaves waits before its stake is liquid again (ORACLE_REGISTER data.leave)',
  },
  ORACLE_SLASH_BPS: {
    default: 1_000n,
    min: 0n,
    max: 10_000n,
    unit: 'basis points',
    doc: "share of an oracle's stake taken when a challenge overturns a result it gave (paid to the challenger)",
  },
  AI_MIN_REPUTATION: {
    default: 10n,
    min: 0n,
    max: 1_000_000n,
    unit: 'count',
    doc: 'an oracle whose reputation fell this far below zero takes no new duties (commit, bid, verdict, designation)',
  },
  AI_MAX_COMMITTERS: {
    default: 7n,
    min: 2n,
    max: 64n,
    unit: 'count',
    doc: 'most oracles that may commit to one quorum task (a quorum may not exceed it)',
  },
  AI_COMMIT_BLOCKS: {
    default: 600n,
    min: 1n,
    max: 1_000_000n,
    unit: 'blocks',
    doc: 'commit window of a quorum task, from its AI_TASK block',
  },
  AI_REVEAL_BLOCKS: {
    default: 600n,
    min: 1n,
    max: 1_000_000n,
    unit: 'blocks',
    doc: 'reveal window of a quorum task, from the end of its commit window',
  },
  AI_BID_BLOCKS: { default: 600n, min: 1n, max: 1_000_000n, unit: 'blocks', doc: 'bidding window of an auction task' },
  AI_EXPIRY_BLOCKS: {
    default: 7_200n,
    min: 1n,
    max: 10_000_000n,
    unit: 'blocks',
    doc: 'blocks a designated or awarded oracle has to post its AI_RESULT',
  },
  AI_CHALLENGE_BLOCKS: {
    default: 1_200n,
    min: 1n,
    max: 1_000_000n,
    unit: 'blocks',
    doc: 'challenge window after a result, before AI_CLAIM may settle it',
  },
  AI_VERDICT_BLOCKS: {
    default: 1_200n,
    min: 1n,
    max: 1_000_000n,
    unit: 'blocks',
    doc: 'verdict window of a challenged task',
  },
  AI_CHALLENGE_BOND: {
    default: coins(50n),
    min: 1n,
    max: coins(100_000_000n),
    unit: 'base units',
    doc: "least bond an AI_CHALLENGE posts (lost to the result's oracles if the result is upheld)",
  },
  AI_MAX_JURORS: { default: 9n, min: 1n, max: 64n, unit: 'count', doc: 'most AI_VERDICT votes one dispute takes' },
  BRIDGE_WINDOW_BLOCKS: {
    default: 7_200n,
    min: 1n,
    max: 10_000_000n,
    unit: 'blocks',
    doc:
      "the bridge circuit breaker's window: releases of an asset within one window stay under " +
      'BRIDGE_BREAKER_BPS of its pool',
  },
  BRIDGE_BREAKER_BPS: {
    default: 1_000n,
    min: 1n,
    max: 10_000n,
    unit: 'basis points',
    doc: 'share of the bridge float that may leave per window before the breaker trips',
  },
  // Default from bench/worstblock.ts (the slowest class per gas × a 200 ms budget, never below one VM_MAX_GAS
  // transaction); docs/PROTOCOL.md "Block gas".
  BLOCK_GAS_LIMIT: {
    default: VM_MAX_GAS,
    min: VM_MAX_GAS,
    max: BigInt(MAX_TXS_PER_BLOCK) * VM_MAX_GAS,
    unit: 'gas',
    doc:
      "a block's VM budget: the sum of its VM transactions' declared gas limits may not exceed it " +
      '(the producer leaves the rest for later blocks; importers refuse a block over it)',
  },
} as const satisfies Record<string, ParamSpec>;

export type ParamName = keyof typeof PARAMS;
export const PARAM_NAMES = Object.keys(PARAMS) as ParamName[];
export const isParamName = (v: unknown): v is ParamName => typeof v === 'string' && Object.hasOwn(PARAMS, v);

/** Every parameter's value. */
export type Params = Readonly<Record<ParamName, bigint>>;

/** The stored record: values as integer strings, and the height a proposal last changed each. */
export interface ParamsRecord {
  values: Record<ParamName, string>;
  changedAt: Partial<Record<ParamName, number>>;
}
export const PARAMS_KEY = RECORD_PREFIX.params;

/** Why `value` cannot be `name`'s value, or undefined. */
export function paramRefusal(name: string, value: string): string | undefined {
  if (!isParamName(name)) return `unknown parameter ${JSON.stringify(name)}`;
  if (!/^(0|[1-9][0-9]{0,77})$/.test(value)) return `${name} must be an integer string`;
  const v = BigInt(value);
  const s: ParamSpec = PARAMS[name];
  if (v < s.min || v > s.max) return `${name} must be from ${s.min} to ${s.max}`;
  return undefined;
}

/** The record genesis writes: defaults, overridden by the chain specification's values. */
export function genesisParams(overrides: Partial<Record<string, string>> = {}): ParamsRecord {
  const values = {} as Record<ParamName, string>;
  for (const n of PARAM_NAMES) values[n] = PARAMS[n].default.toString();
  for (const [n, v] of Object.entries(overrides)) {
    const r = paramRefusal(n, String(v));
    if (r) throw new Error(`genesis params: ${r}`);
    values[n as ParamName] = String(v);
  }
  return { values, changedAt: {} };
}

const toParams = (r: ParamsRecord): Params => {
  const out = {} as Record<ParamName, bigint>;
  for (const n of PARAM_NAMES) out[n] = BigInt(r.values[n] ?? PARAMS[n].default);
  return out;
};

/** The stored record (genesis always writes one; a state without one reads the defaults). */
export async function loadParamsRecord(s: ExecState): Promise<ParamsRecord> {
  return (await s.getRecord<ParamsRecord>(PARAMS_KEY)) ?? genesisParams();
}

/** THE accessor: every parameter as it stands in this state. */
export async function loadParams(s: ExecState): Promise<Params> {
  return toParams(await loadParamsRecord(s));
}

/** One parameter (the same record, without building the whole table: applyTx reads it per staker). */
export async function paramOf(s: ExecState, name: ParamName): Promise<bigint> {
  return BigInt((await loadParamsRecord(s)).values[name] ?? PARAMS[name].default);
}

/** Writes a voted value (the governance module's parameter change). */
export async function setParam(s: ExecState, name: ParamName, value: bigint, height: number): Promise<void> {
  const r = await loadParamsRecord(s);
  await s.putRecord(PARAMS_KEY, {
    values: { ...r.values, [name]: value.toString() },
    changedAt: { ...r.changedAt, [name]: height },
  } satisfies ParamsRecord);
}

/** Basis points of an amount, rounded down. */
export const bps = (amount: bigint, points: bigint): bigint => (amount * points) / 10_000n;
