import type { ChainEvent } from '../../protocol/events';
import type { ExecState } from '../../protocol/execState';
import type { Params } from '../../protocol/governable';
import type { Address } from '../../protocol/types';
import { getCandidate, getCandidates, getValidatorSet, getVoter, VALIDATORS_KEY, type ValidatorSet } from './records';

/**
 * Elections (docs/PROTOCOL.md "Validators"): at every height that is a multiple of
 * EPOCH_BLOCKS, after the block's transactions, the eligible candidates (own stake ≥
 * MIN_CANDIDATE_STAKE) are ranked by weight — own stake not allocated elsewhere plus votes
 * received — highest first, ties broken by the lower address. The first MAX_VALIDATORS form
 * the active set, the next BANK_SIZE the standby bank. A jailed candidate is not eligible. Between epochs only a
 * jailing (jail.ts) changes the set.
 * With no eligible candidate the previous set stays: the chain is never left without one.
 */
export interface Standing {
  address: Address;
  /** Own stake (AccountState.staked). */
  stake: bigint;
  /** Votes received (its own included). */
  votes: bigint;
  weight: bigint;
  eligible: boolean;
}

/** Every candidate's standing, ranked: eligible first, by weight, then address. */
export async function standings(s: ExecState, minStake: bigint): Promise<Standing[]> {
  const out: Standing[] = [];
  for (const address of await getCandidates(s)) {
    const c = await getCandidate(s, address);
    const stake = (await s.getAccount(address))?.staked ?? 0n;
    const votes = BigInt(c?.received ?? '0');
    const allocated = BigInt((await getVoter(s, address)).total);
    // A jailed candidate keeps its standing (shown by /validators) but is not eligible.
    out.push({ address, stake, votes, weight: stake - allocated + votes, eligible: stake >= minStake && !c?.jailed });
  }
  return out.sort(
    (a, b) =>
      Number(b.eligible) - Number(a.eligible) ||
      (a.weight === b.weight ? (a.address < b.address ? -1 : 1) : a.weight > b.weight ? -1 : 1),
  );
}

export const isEpochBoundary = (height: number, p: Params): boolean =>
  height > 0 && BigInt(height) % p.EPOCH_BLOCKS === 0n;

/** Runs the election of `height` (an epoch boundary); returns the event when the set changed. */
export async function elect(s: ExecState, p: Params, height: number): Promise<ChainEvent[]> {
  const ranked = (await standings(s, p.MIN_CANDIDATE_STAKE)).filter((c) => c.eligible).map((c) => c.address);
  const before = await getValidatorSet(s);
  const epoch = Number(BigInt(height) / p.EPOCH_BLOCKS);
  if (ranked.length === 0) {
    await s.putRecord(VALIDATORS_KEY, { ...before, epoch, electedAt: height } satisfies ValidatorSet);
    return [];
  }
  const active = ranked.slice(0, Number(p.MAX_VALIDATORS));
  const bank = ranked.slice(active.length, active.length + Number(p.BANK_SIZE));
  const next: ValidatorSet = { active, bank, epoch, electedAt: height };
  await writeValidatorSet(s, before, next);
  if (sameList(before.active, active) && sameList(before.bank, bank)) return [];
  return [{ kind: 'validators.elect', epoch, height, active, bank, previous: before.active }];
}

export const sameList = (x: readonly Address[], y: readonly Address[]): boolean =>
  x.length === y.length && x.every((v, i) => v === y[i]);

/** Stores a new elected set; the accounts' `isValidator` flag follows its active part. */
export async function writeValidatorSet(s: ExecState, before: ValidatorSet, next: ValidatorSet): Promise<void> {
  await s.putRecord(VALIDATORS_KEY, next);
  const now = new Set(next.active);
  for (const a of [...new Set([...before.active, ...next.active])].sort()) {
    const acc = await s.getAccount(a);
    if (acc && acc.isValidator !== now.has(a)) {
      acc.isValidator = now.has(a);
      await s.putAccount(a, acc);
    }
  }
}
