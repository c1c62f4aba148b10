import { recordKey } from '../../protocol/records';
import type { Refusal } from '../../protocol/refusal';
import type { ExecState } from '../../protocol/execState';
import type { Params } from '../../protocol/governable';
import type { Address } from '../../protocol/types';
import { AI } from './errors';

/**
 * Oracle records (`ai/oracle/<address>`) and the list of every oracle ever registered
 * (`ai/oracles`). The stake itself sits in the AI escrow account (0x…7a) beside task rewards and
 * challenge bonds; the record says whose it is.
 */
export interface OracleRecord {
  address: Address;
  /** Stake held in the AI escrow, base units (0 after leaving). */
  stake: string;
  endpoint: string | null;
  registeredAt: number;
  /** Tasks whose decided answer it gave and that settled (DONE or UPHELD). */
  completed: number;
  /** Losing reveals and overturned results. */
  failed: number;
  /** Duties not done in their window: a commit never revealed, a designated result never posted. */
  missed: number;
  /** Times a challenge overturned its result (its stake was cut by ORACLE_SLASH_BPS each time). */
  slashes: number;
  /** Base units taken by slashes. */
  slashed: string;
  /** +1 per settled win, −1 per losing reveal, −2 per missed duty, −5 per overturned result. */
  reputation: number;
  /** Open duties: tasks where its stake answers for a commit, an assignment or a result still challengeable. */
  duties: number;
  /** Height it left at (its stake unbonding), or null while registered. */
  leftAt: number | null;
}

export const oracleKey = (a: Address): string => recordKey('ai', 'oracle', a);
export const ORACLES_KEY = recordKey('ai', 'oracles');

export const getOracle = (s: ExecState, a: Address): Promise<OracleRecord | undefined> =>
  s.getRecord<OracleRecord>(oracleKey(a));
export const putOracle = (s: ExecState, o: OracleRecord): Promise<void> => s.putRecord(oracleKey(o.address), o);
export const getOracleList = async (s: ExecState): Promise<Address[]> =>
  (await s.getRecord<Address[]>(ORACLES_KEY)) ?? [];

export async function addToOracleList(s: ExecState, a: Address): Promise<void> {
  const all = await getOracleList(s);
  if (!all.includes(a)) await s.putRecord(ORACLES_KEY, [...all, a].sort());
}

export const newOracle = (address: Address, height: number, endpoint: string | null): OracleRecord => ({
  address,
  stake: '0',
  endpoint,
  registeredAt: height,
  completed: 0,
  failed: 0,
  missed: 0,
  slashes: 0,
  slashed: '0',
  reputation: 0,
  duties: 0,
  leftAt: null,
});

/**
 * Why `o` may not take a new duty (commit, bid, verdict, designation), or undefined. The sybil
 * rule: a duty needs intact stake — registered, not leaving, at least the MIN_ORACLE_STAKE in
 * force now (a slash or a raised minimum takes an oracle out until it tops up) — and a
 * reputation not below −AI_MIN_REPUTATION.
 */
export function dutyRefusal(o: OracleRecord | undefined, who: Address, p: Params): Refusal | undefined {
  if (!o || o.leftAt !== null) return AI.AI_NOT_ORACLE({ oracle: who, hint: true });
  if (BigInt(o.stake) < p.MIN_ORACLE_STAKE)
    return AI.AI_ORACLE_UNDERSTAKED({ oracle: who, stake: o.stake, min: p.MIN_ORACLE_STAKE });
  if (o.reputation < -Number(p.AI_MIN_REPUTATION))
    return AI.AI_ORACLE_DISREPUTED({ oracle: who, reputation: o.reputation, min: p.AI_MIN_REPUTATION });
  return undefined;
}

/** How a settled or decided task changes an oracle's record. */
export interface OracleScore {
  oracle: Address;
  completed?: number;
  failed?: number;
  missed?: number;
  reputation: number;
  /** Duties released (the task no longer holds its stake). */
  release: number;
}

export async function applyScore(s: ExecState, sc: OracleScore): Promise<void> {
  const o = await getOracle(s, sc.oracle);
  if (!o) return;
  await putOracle(s, {
    ...o,
    completed: o.completed + (sc.completed ?? 0),
    failed: o.failed + (sc.failed ?? 0),
    missed: o.missed + (sc.missed ?? 0),
    reputation: o.reputation + sc.reputation,
    duties: Math.max(0, o.duties - sc.release),
  });
}
