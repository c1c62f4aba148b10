import type { ChainEvent } from '../../chain/events';
import { ENERGY_COST } from '../../chain/params';
import type { SignedTx, TxType } from '../../chain/types';
import { commonChecks, dataFields } from '../assets/common';
import { TxFailure, type ExecContext, type TxHandler } from '../handler';

/**
 * A module transaction type described by its parts; `defineHandler` turns it into a
 * TxHandler. Shared by the NFT721 and name-service modules. tokens/define.ts is the FT20
 * twin (same refusal wording); both belong next to assets/common.ts as one factory.
 */
export interface HandlerSpec<T extends TxType, D extends object> {
  type: T;
  /**
   * What the envelope's `to` means: 'none' (must be null), 'optional' (null allowed), or a
   * phrase naming the required address for the refusal: "the recipient" gives
   * "NFT_MINT needs the recipient address in to".
   */
  to: 'none' | 'optional' | string;
  required: readonly string[];
  optional?: readonly string[];
  /** Whether the type may carry a native `amount` (otherwise it must be "0"). */
  allowAmount?: boolean;
  /** Stateless checks of the data fields (already limited to the allowed keys): a refusal, or the typed data. */
  parse(d: Record<string, unknown>, tx: SignedTx): D | string;
  /** The state-dependent part: throws TxFailure, or returns the events of the success. */
  run(ctx: ExecContext, d: D): Promise<ChainEvent[]>;
}

function check<D extends object>(spec: HandlerSpec<TxType, D>, tx: SignedTx): D | string {
  const common = commonChecks(tx, spec.allowAmount);
  if (common) return common;
  if (spec.to === 'none' && tx.to !== null) return `${tx.type} takes no to address (to must be null)`;
  if (spec.to !== 'none' && spec.to !== 'optional' && tx.to === null) return `${tx.type} needs ${spec.to} address in to`;
  const d = dataFields(tx, spec.required, spec.optional);
  return typeof d === 'string' ? d : spec.parse(d, tx);
}

/**
 * validate = envelope, amount, `to` and data checks; execute re-runs them (a block from a
 * peer did not pass this node's admission, and a malformed one must fail, not crash) and
 * then the state-dependent part. Energy is ENERGY_COST[type] whether it succeeds or fails.
 */
export function defineHandler<T extends TxType, D extends object>(spec: HandlerSpec<T, D>): TxHandler & { type: T } {
  const energy = ENERGY_COST[spec.type];
  return {
    type: spec.type,
    validate(tx) {
      const r = check(spec, tx);
      return typeof r === 'string' ? r : undefined;
    },
    maxEnergy: () => energy,
    async execute(ctx) {
      const d = check(spec, ctx.tx);
      if (typeof d === 'string') throw new TxFailure(d);
      return { energy, events: await spec.run(ctx, d) };
    },
  };
}
