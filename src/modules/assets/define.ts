import type { ChainEvent } from '../../protocol/events';
import { ENERGY_COST } from '../../protocol/params';
import type { Address, SignedTx, TxType } from '../../protocol/types';
import type { ExecContext, TxHandler } from '../../protocol/handler';
import { commonChecks, dataFields } from './common';

/**
 * The one handler factory of the asset modules (FT20 tokens, NFT721, name service): a
 * transaction type described by its parts becomes a TxHandler.
 *
 * Stateless rules (envelope, native amount, `to`, the data keys, then the type's `parse`)
 * decide `validate`. applyTx runs `validate` before every execution, so a transaction that
 * fails them is never executed: admission refuses it (HTTP 400), block building drops it and
 * a block carrying one is invalid. `execute` parses the data again only to get its typed
 * fields; it does not re-check anything. Energy is ENERGY_COST[type], success or failure.
 */

/** A stateless refusal raised while parsing a transaction's fields (becomes validate's reason). */
class Refusal extends Error {}

/** Refuses the transaction at admission with `reason` (only inside a spec's `parse` and the field readers it calls). */
export function refuse(reason: string): never {
  throw new Refusal(reason);
}

/**
 * What the envelope's `to` carries: 'none' (must be null), 'optional' (null allowed), or the
 * role of a required address, named in the refusal "<TYPE> needs the <role> address in to".
 */
export type ToRule = 'none' | 'optional' | 'recipient' | 'spender' | 'target' | 'new target' | 'new owner';

/** What a spec's `run` sees: the execution context, the envelope's `to` and the event list to append to. */
export interface AssetCtx extends ExecContext {
  /** The envelope's `to` (recipient, spender, target…); null when absent. */
  party: Address | null;
  /** The events of a success, in execution order (discarded if the transaction fails). */
  events: ChainEvent[];
}

export interface AssetTxSpec<T extends TxType, D extends object> {
  type: T;
  to: ToRule;
  required: readonly string[];
  optional?: readonly string[];
  /** Whether the type may carry a native `amount` (otherwise it must be "0"). */
  allowAmount?: boolean;
  /**
   * Stateless checks of the data object (its keys are already checked): the typed data, or
   * `refuse(reason)`. Pure: it sees only the transaction.
   */
  parse(tx: SignedTx, d: Record<string, unknown>): D;
  /** The state-dependent part: throws TxFailure(reason) to fail; appends its events to `c.events`. */
  run(c: AssetCtx, d: D): Promise<void>;
}

export function defineAssetTx<T extends TxType, D extends object>(spec: AssetTxSpec<T, D>): TxHandler & { type: T } {
  const energy = ENERGY_COST[spec.type];
  /** Every stateless rule, in order; the first broken one refuses. */
  const read = (tx: SignedTx): D => {
    const common = commonChecks(tx, spec.allowAmount);
    if (common) refuse(common);
    if (spec.to === 'none' && tx.to !== null) refuse(`${spec.type} takes no to address (to must be null)`);
    if (spec.to !== 'none' && spec.to !== 'optional' && tx.to === null) refuse(`${spec.type} needs the ${spec.to} address in to`);
    const d = dataFields(tx, spec.required, spec.optional);
    if (typeof d === 'string') refuse(d);
    return spec.parse(tx, d);
  };
  return {
    type: spec.type,
    validate(tx) {
      try {
        read(tx);
        return undefined;
      } catch (e) {
        if (e instanceof Refusal) return e.message;
        throw e;
      }
    },
    maxEnergy: () => energy,
    async execute(ctx) {
      let d: D;
      try {
        d = read(ctx.tx); // validated by applyTx: this only types the fields
      } catch (e) {
        // Not a transaction outcome: applyTx never executes what validate refuses.
        if (e instanceof Refusal) throw new Error(`${spec.type} executed without passing validate (${e.message})`);
        throw e;
      }
      const c: AssetCtx = { ...ctx, party: ctx.tx.to, events: [] };
      await spec.run(c, d);
      return { energy, events: c.events };
    },
  };
}
