import { credit, debit } from '../../protocol/accounts';
import type { ChainEvent } from '../../protocol/events';
import type { ExecState } from '../../protocol/execState';
import { loadParams } from '../../protocol/governable';
import { AI_ESCROW_ADDRESS } from '../../protocol/params';
import type { Address } from '../../protocol/types';
import { applyScore, getOracle, putOracle, type OracleScore } from './oracles';

/**
 * What the AI task machine's named effects do to state. Every coin they move comes out of the
 * AI escrow (0x…7a), where AI_TASK put the reward, AI_CHALLENGE the bond and ORACLE_REGISTER
 * the stakes: a payment the escrow cannot cover fails (debit refuses), so nothing is paid that
 * was not escrowed.
 */
export async function bindOracle(s: ExecState, oracle: Address): Promise<void> {
  const o = await getOracle(s, oracle);
  if (o) await putOracle(s, { ...o, duties: o.duties + 1 });
}

export async function payFromEscrow(
  s: ExecState,
  payments: readonly { to: Address; amount: string }[],
  height: number,
): Promise<void> {
  for (const p of payments) {
    const amount = BigInt(p.amount);
    if (amount === 0n) continue;
    await debit(s, AI_ESCROW_ADDRESS, amount);
    await credit(s, p.to, amount, height);
  }
}

export async function scoreOracles(s: ExecState, scores: readonly OracleScore[]): Promise<void> {
  for (const sc of scores) await applyScore(s, sc);
}

/** Takes ORACLE_SLASH_BPS of each oracle's stake to `to` (the challenger who overturned their result). */
export async function slashOracles(
  s: ExecState,
  oracles: readonly Address[],
  to: Address,
  task: string,
  height: number,
): Promise<ChainEvent[]> {
  const bps = (await loadParams(s)).ORACLE_SLASH_BPS;
  const events: ChainEvent[] = [];
  for (const a of [...oracles].sort()) {
    const o = await getOracle(s, a);
    if (!o) continue;
    const amount = (BigInt(o.stake) * bps) / 10_000n;
    await putOracle(s, {
      ...o,
      stake: (BigInt(o.stake) - amount).toString(),
      slashes: o.slashes + 1,
      slashed: (BigInt(o.slashed) + amount).toString(),
    });
    await payFromEscrow(s, [{ to, amount: amount.toString() }], height);
    events.push({ kind: 'ai.slash', oracle: a, amount: amount.toString(), to, task, height });
  }
  return events;
}
