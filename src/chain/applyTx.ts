import { pqKeyHashOf, verifyTxReference } from '../crypto/txSigning';
import { TxFailure } from '../protocol/handler';
import type { Refusal } from '../protocol/refusal';
import { REFUSAL, TX } from '../protocol/txRefusals';
import { handlerFor, nestedOf } from '../modules/registry';
import { evmEngine } from '../modules/vm/engine';
import { liquidCost } from '../protocol/cost';
import { governedRefusal } from '../protocol/permissions';
import { chargeFor, isFeeExempt } from '../protocol/energy';
import { paramOf } from '../protocol/governable';
import type { ExecState } from '../protocol/execState';
import type { Network } from '../protocol/network';
import type { AccountState, Address, SignedTx, TxResult } from '../protocol/types';

/**
 * Outcome of trying a transaction against state:
 * - applied: it is in the block (success or failed); fee and nonce are settled either way;
 * - skip: it cannot be in this block and state is untouched. `permanent` means it never can
 *   (the mempool drops it); `gap` means an earlier nonce is missing (it waits).
 */
export type TxVerdict =
  | { kind: 'applied'; result: TxResult; burned: bigint }
  | { kind: 'skip'; refusal: Refusal; permanent: boolean; gap: boolean };

export interface BlockContext {
  height: number;
  timestamp: number;
  producer: Address;
  /**
   * The caller checked the nested signatures (META_TX's inner envelope) of every transaction
   * it hands in, in the verify pool: the producer (its candidates passed admission) and the
   * importer (the block's signatures passed). Any other caller (a replay, a tool, a test)
   * leaves it unset, and they are checked here by the reference verifier with the same
   * verdict: a bad one can never be in a block (`invalid signature`).
   */
  nestedVerified?: boolean;
  /**
   * Every transaction handed in passed this node's admission, its type's stateless checks
   * (`validate`) included, on this very object: the producer's candidates. A block from
   * elsewhere (import, replay) leaves it unset and is checked here. Skipping them saved ~10 % of
   * a META_TX block (its envelope's keys and signatures decoded again: bench/metaTx.ts).
   */
  admitted?: boolean;
  network: Network;
}

const skip = (refusal: Refusal, permanent: boolean, gap = false): TxVerdict => ({
  kind: 'skip',
  refusal,
  permanent,
  gap,
});

/** Only a staker can be exempt by stake: the parameter is read for stakers alone. */
async function exemptByStake(state: ExecState, a: AccountState): Promise<boolean> {
  return a.staked > 0n && isFeeExempt(a, await paramOf(state, 'FEE_EXEMPT_STAKE'));
}

/**
 * The one place where a transaction's fee is debited and burned, its energy spent and its
 * nonce advanced, for every type. Deterministic: no clock, no floats.
 * Energy is charged after execution from what the handler reports (VM: gas / 100); the
 * worst case (`maxEnergy`) is checked against the fee limit first, and since execution
 * can only spend the sender's `amount`, the fee is still covered afterwards.
 */
export async function applyTx(state: ExecState, tx: SignedTx, ctx: BlockContext): Promise<TxVerdict> {
  const sender = tx.from;
  const acc = await state.getAccount(sender);
  if (!acc) return skip(REFUSAL.balance, false);
  if (tx.nonce < acc.nonce) return skip(REFUSAL.nonceUsed, true);
  if (tx.nonce > acc.nonce) return skip(TX.TX_NONCE_GAP(), false, true);
  const keyHash = pqKeyHashOf(tx);
  if (keyHash && acc.mldsaKeyHash !== null && acc.mldsaKeyHash !== keyHash) return skip(REFUSAL.signature, true);

  // Admission ran these stateless checks already; a block from elsewhere (import, replay) may
  // not have, and a transaction admission would refuse can never be in a block.
  const handler = handlerFor(tx.type);
  if (!handler) return skip(TX.TX_UNKNOWN_TYPE({ type: String(tx.type) }), true);
  const invalid = ctx.admitted ? undefined : handler.validate(tx);
  if (invalid !== undefined) return skip(TX.TX_MALFORMED({ error: invalid }), true);
  if (!ctx.nestedVerified && !nestedOf(tx).every((inner) => verifyTxReference(inner, ctx.network)))
    return skip(REFUSAL.signature, true);
  const feeLimit = BigInt(tx.fee);
  if (acc.balance < liquidCost(tx)) return skip(REFUSAL.balance, false);
  const exempt = acc.feeExempt || (await exemptByStake(state, acc));
  if (chargeFor(acc, handler.maxEnergy(tx), ctx.height, exempt).burn > feeLimit) return skip(TX.TX_FEE_LIMIT(), false);

  acc.nonce += 1;
  if (keyHash) acc.mldsaKeyHash ??= keyHash;
  await state.putAccount(sender, acc);

  let result: Omit<TxResult, 'energyUsed' | 'burned'>;
  let energy: bigint;
  state.checkpoint();
  try {
    // A permissioned account's own key may not send what its permission governs.
    const governed = acc.permissioned ? await governedRefusal(state, sender, tx) : undefined;
    if (governed !== undefined) throw new TxFailure(governed);
    const out = await handler.execute({
      state,
      height: ctx.height,
      timestamp: ctx.timestamp,
      producer: ctx.producer,
      sender,
      tx,
      network: ctx.network,
      vm: evmEngine,
    });
    await state.commit();
    energy = out.energy;
    result = {
      status: 'success',
      ...(out.vm ? { vm: out.vm } : {}),
      ...(out.events?.length ? { events: out.events } : {}),
    };
  } catch (e) {
    await state.revert();
    if (!(e instanceof TxFailure)) throw e; // a bug, not a transaction outcome: let the supervisor see it
    energy = e.energy ?? handler.maxEnergy(tx);
    result = { status: 'failed', error: e.reason, code: e.code, ...(e.vm ? { vm: e.vm } : {}) };
  }

  const payer = (await state.getAccount(sender))!;
  const charge = chargeFor(payer, energy, ctx.height, payer.feeExempt || (await exemptByStake(state, payer)));
  payer.balance -= charge.burn;
  payer.energy = charge.energyLeft;
  payer.energyHeight = ctx.height;
  await state.putAccount(sender, payer);
  return {
    kind: 'applied',
    result: { ...result, energyUsed: charge.energyUsed.toString(), burned: charge.burn.toString() },
    burned: charge.burn,
  };
}
