import { defineAssetTx, refuse } from '../assets/define';
import { TxFailure } from '../../protocol/handler';
import { field } from './fields';
import { frozenUntil, loadToken } from './ledger';
import { freezeKey, getFreeze, type FreezeRecord } from './records';

/**
 * TOKEN_FREEZE: a holder locks its own balance of a token until a height (a commitment: it
 * cannot send or burn while height < until; receiving still works). A freeze can only be
 * extended, never shortened.
 */
export const tokenFreezeHandler = defineAssetTx({
  type: 'TOKEN_FREEZE',
  to: 'none',
  required: ['token', 'until'],
  parse(tx, d) {
    const until = d.until;
    if (typeof until !== 'number' || !Number.isSafeInteger(until) || until < 1) refuse('TOKEN_FREEZE data.until must be a positive integer height');
    return { token: field.token(tx, d), until };
  },
  async run(c, d) {
    const t = await loadToken(c.state, d.token);
    if (d.until <= c.height) throw new TxFailure(`data.until must be above the current height ${c.height}`);
    const current = await frozenUntil(c.state, t.id, c.sender, c.height);
    if (current !== undefined && d.until <= current) throw new TxFailure(`a freeze can only be extended: frozen until height ${current}`);
    await c.state.putRecord(freezeKey(t.id, c.sender), { until: d.until } satisfies FreezeRecord);
  },
});

/** TOKEN_UNFREEZE: removes the sender's freeze record of a token once it has expired. */
export const tokenUnfreezeHandler = defineAssetTx({
  type: 'TOKEN_UNFREEZE',
  to: 'none',
  required: ['token'],
  parse: (tx, d) => ({ token: field.token(tx, d) }),
  async run(c, d) {
    const t = await loadToken(c.state, d.token);
    const f = await getFreeze(c.state, t.id, c.sender);
    if (!f) throw new TxFailure('not frozen');
    if (c.height < f.until) throw new TxFailure(`frozen until height ${f.until}`);
    await c.state.deleteRecord(freezeKey(t.id, c.sender));
  },
});
