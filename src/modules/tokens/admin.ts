import { defineAssetTx, refuse } from '../assets/define';
import { TxFailure } from '../../protocol/handler';
import { field } from './fields';
import { loadOwnedToken } from './ledger';
import { isBlacklisted, putToken, setBlacklisted } from './records';

/** TOKEN_PAUSE / TOKEN_UNPAUSE: the owner stops (or resumes) every movement of the token; approvals stay allowed. */
const pauseSwitch = (type: 'TOKEN_PAUSE' | 'TOKEN_UNPAUSE', paused: boolean) =>
  defineAssetTx({
    type,
    to: 'none',
    required: ['token'],
    parse: (tx, d) => ({ token: field.token(tx, d) }),
    async run(c, d) {
      const t = await loadOwnedToken(c.state, d.token, c.sender);
      if (t.paused === paused) throw new TxFailure(paused ? 'token is already paused' : 'token is not paused');
      await putToken(c.state, { ...t, paused });
    },
  });

export const tokenPauseHandler = pauseSwitch('TOKEN_PAUSE', true);
export const tokenUnpauseHandler = pauseSwitch('TOKEN_UNPAUSE', false);

/** TOKEN_BLACKLIST: the owner bars (or clears) address `to` from sending and receiving the token. */
export const tokenBlacklistHandler = defineAssetTx({
  type: 'TOKEN_BLACKLIST',
  to: 'target',
  required: ['token', 'blacklisted'],
  parse(tx, d) {
    if (tx.to === tx.from) refuse('TOKEN_BLACKLIST cannot target the sender itself');
    return { token: field.token(tx, d), blacklisted: field.boolean(tx, d, 'blacklisted') };
  },
  async run(c, d) {
    const t = await loadOwnedToken(c.state, d.token, c.sender);
    const target = c.party!;
    if ((await isBlacklisted(c.state, t.id, target)) === d.blacklisted) {
      throw new TxFailure(d.blacklisted ? 'address is already blacklisted' : 'address is not blacklisted');
    }
    await setBlacklisted(c.state, t.id, target, d.blacklisted);
  },
});
