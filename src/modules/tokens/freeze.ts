import { TxFailure } from '../../protocol/handler';
import { defineTx } from '../tx/define';
import { integerField } from '../tx/fields';
import { TOKEN } from './errors';
import { TOKEN_FLAG, tokenField } from './fields';
import { frozenUntil, loadToken } from './ledger';
import { freezeKey, getFreeze, type FreezeRecord } from './records';

/**
 * TOKEN_FREEZE: a holder locks its own balance of a token until a height (a commitment: it
 * cannot send or burn while height < until; receiving still works). A freeze can only be
 * extended, never shortened.
 */
export const tokenFreeze = defineTx({
  type: 'TOKEN_FREEZE',
  module: 'tokens',
  summary: 'a holder locks its own balance until height `until` (sending and burning refused before it); only extends',
  to: { kind: 'none' },
  fields: {
    token: tokenField,
    until: integerField('must be a positive integer height', 'block height, a positive safe integer', 1),
  },
  checkOrder: ['until', 'token'],
  energy: 100n,
  async run(c, d) {
    const t = await loadToken(c.state, d.token);
    if (d.until <= c.height)
      throw new TxFailure(TOKEN.TOKEN_FREEZE_NOT_AHEAD({ token: t.id, until: d.until, height: c.height }));
    const current = await frozenUntil(c.state, t.id, c.sender, c.height);
    if (current !== undefined && d.until <= current)
      throw new TxFailure(TOKEN.TOKEN_FREEZE_NOT_EXTENDED({ token: t.id, until: d.until, frozenUntil: current }));
    await c.state.putRecord(freezeKey(t.id, c.sender), { until: d.until } satisfies FreezeRecord);
  },
  cli: {
    command: 'token freeze',
    about: "Freezes the sender's own balance of the token until block --until.",
    summary: '--token --until <height> (your own balance)',
    flags: [
      TOKEN_FLAG,
      { flag: 'until', field: 'until', kind: 'int', metavar: '<height>', help: 'block height the freeze lasts until' },
    ],
    example: 'cairn token freeze --token CUSD --until 250000',
  },
});

/** TOKEN_UNFREEZE: removes the sender's freeze record of a token once it has expired. */
export const tokenUnfreeze = defineTx({
  type: 'TOKEN_UNFREEZE',
  module: 'tokens',
  summary: "removes the sender's expired freeze of a token",
  to: { kind: 'none' },
  fields: { token: tokenField },
  energy: 100n,
  async run(c, d) {
    const t = await loadToken(c.state, d.token);
    const f = await getFreeze(c.state, t.id, c.sender);
    if (!f) throw new TxFailure(TOKEN.TOKEN_NOT_FROZEN({ token: t.id, address: c.sender }));
    if (c.height < f.until)
      throw new TxFailure(TOKEN.TOKEN_FREEZE_NOT_EXPIRED({ token: t.id, address: c.sender, until: f.until }));
    await c.state.deleteRecord(freezeKey(t.id, c.sender));
  },
  cli: {
    command: 'token unfreeze',
    about: "Lifts the sender's own freeze of the token.",
    summary: '--token',
    flags: [TOKEN_FLAG],
    example: 'cairn token unfreeze --token CUSD',
  },
});
