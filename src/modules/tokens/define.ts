import type { ChainEvent } from '../../chain/events';
import { ENERGY_COST } from '../../chain/params';
import type { Address, SignedTx, TxType } from '../../chain/types';
import type { Hex } from '../../primitives/hex';
import { ASSET_ID_RE, commonChecks, dataFields, tokenAmount } from '../assets/common';
import { TxFailure, type ExecContext, type TxHandler } from '../handler';

/** The 11 FT20 types (TOKEN_CREATE … TOKEN_UNFREEZE). */
export type TokenTxType = Extract<TxType, `TOKEN_${string}`>;

/** A stateless refusal raised while parsing a transaction's fields (becomes validate's reason). */
class Refusal extends Error {}

/** Refuses the transaction at admission with `reason` (only inside a spec's `parse`). */
export function refuse(reason: string): never {
  throw new Refusal(reason);
}

/** Field readers for `parse`: each returns the typed value or refuses with a clear reason. */
export const field = {
  token(tx: SignedTx, d: Record<string, unknown>): Hex {
    const v = d.token;
    if (typeof v !== 'string' || !ASSET_ID_RE.test(v)) refuse(`${tx.type} data.token must be a token id (0x + 40 lower-case hex digits)`);
    return v as Hex;
  },
  /** An integer string 1..2^256 − 1 (0..2^256 − 1 with `allowZero`). */
  amount(tx: SignedTx, d: Record<string, unknown>, key = 'amount', allowZero = false): bigint {
    const n = tokenAmount(d[key], allowZero);
    if (n === undefined) refuse(`${tx.type} data.${key} must be an integer string from ${allowZero ? 0 : 1} to 2^256 − 1`);
    return n;
  },
  /** A 0x address in any letter case, returned in the canonical lower-case form. */
  address(tx: SignedTx, d: Record<string, unknown>, key: string): Address {
    const v = d[key];
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(v)) refuse(`${tx.type} data.${key} must be a 0x address (40 hex digits)`);
    return `0x${v.slice(2).toLowerCase()}`;
  },
  boolean(tx: SignedTx, d: Record<string, unknown>, key: string, fallback?: boolean): boolean {
    const v = key in d ? d[key] : fallback;
    if (typeof v !== 'boolean') refuse(`${tx.type} data.${key} must be a boolean`);
    return v;
  },
};

/** What a token handler's `run` sees: the execution context, the `to` party and the event list to append to. */
export interface TokenCtx extends ExecContext {
  /** The envelope's `to` (recipient, spender or target); null for types without one. */
  party: Address | null;
  events: ChainEvent[];
}

export interface TokenTxSpec<D extends object> {
  type: TokenTxType;
  /** What the envelope's `to` carries, or null when it must be null. */
  to: 'recipient' | 'spender' | 'target' | null;
  required: readonly string[];
  optional?: readonly string[];
  /** Stateless checks of the data object (its keys are already checked): the typed data, or `refuse(reason)`. */
  parse(tx: SignedTx, d: Record<string, unknown>): D;
  /** State-dependent effect: throws TxFailure(reason) to fail; appends its events to `c.events`. */
  run(c: TokenCtx, d: D): Promise<void>;
}

/**
 * Builds an FT20 handler from its spec. The stateless rules are one function used both at
 * admission (`validate`) and again at execution: block import does not run `validate`, so a
 * malformed transaction in someone else's block fails (state untouched) instead of crashing
 * execution. Energy is the type's fixed ENERGY_COST, success or failure.
 */
export function defineTokenTx<D extends object>(spec: TokenTxSpec<D>): TxHandler {
  const energy = ENERGY_COST[spec.type];
  const check = (tx: SignedTx): D | Refusal => {
    const common = commonChecks(tx);
    if (common) return new Refusal(common);
    if (spec.to === null && tx.to !== null) return new Refusal(`${spec.type} takes no to address (to must be null)`);
    if (spec.to !== null && tx.to === null) return new Refusal(`${spec.type} needs the ${spec.to} address in to`);
    const d = dataFields(tx, spec.required, spec.optional);
    if (typeof d === 'string') return new Refusal(d);
    try {
      return spec.parse(tx, d);
    } catch (e) {
      if (e instanceof Refusal) return e;
      throw e;
    }
  };
  return {
    type: spec.type,
    validate(tx) {
      const r = check(tx);
      return r instanceof Refusal ? r.message : undefined;
    },
    maxEnergy: () => energy,
    async execute(ctx) {
      const d = check(ctx.tx);
      if (d instanceof Refusal) throw new TxFailure(d.message);
      const c: TokenCtx = { ...ctx, party: ctx.tx.to, events: [] };
      await spec.run(c, d);
      return { energy, events: c.events };
    },
  };
}
