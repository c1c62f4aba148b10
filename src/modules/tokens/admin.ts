import { TxFailure } from '../../protocol/handler';
import { addressFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { booleanField } from '../tx/fields';
import { TOKEN } from './errors';
import { TOKEN_FLAG, tokenField } from './fields';
import { loadOwnedToken } from './ledger';
import { isBlacklisted, putToken, setBlacklisted } from './records';

/** TOKEN_PAUSE / TOKEN_UNPAUSE: the owner stops (or resumes) every movement of the token; approvals stay allowed. */
const pauseSwitch = <T extends 'TOKEN_PAUSE' | 'TOKEN_UNPAUSE'>(type: T, paused: boolean, about: string) =>
  defineTx({
    type,
    module: 'tokens',
    summary: paused
      ? 'the owner stops every movement of the token (approvals stay allowed)'
      : 'the owner lets a paused token move again',
    to: { kind: 'none' },
    fields: { token: tokenField },
    energy: 100n,
    async run(c, d) {
      const t = await loadOwnedToken(c.state, d.token, c.sender);
      if (t.paused === paused)
        throw new TxFailure(
          paused ? TOKEN.TOKEN_ALREADY_PAUSED({ token: t.id }) : TOKEN.TOKEN_NOT_PAUSED({ token: t.id }),
        );
      await putToken(c.state, { ...t, paused });
    },
    cli: {
      command: paused ? 'token pause' : 'token unpause',
      about,
      summary: '--token (owner)',
      flags: [TOKEN_FLAG],
      example: `cairn token ${paused ? 'pause' : 'unpause'} --token CUSD`,
    },
  });

export const tokenPause = pauseSwitch(
  'TOKEN_PAUSE',
  true,
  'Stops every transfer of the token until unpaused (owner only).',
);
export const tokenUnpause = pauseSwitch('TOKEN_UNPAUSE', false, 'Lets a paused token move again (owner only).');

/** TOKEN_BLACKLIST: the owner bars (or clears) address `to` from sending and receiving the token. */
export const tokenBlacklist = defineTx({
  type: 'TOKEN_BLACKLIST',
  module: 'tokens',
  summary: 'the owner bars (blacklisted true) or clears address `to` from sending and receiving the token',
  to: { kind: 'required', role: 'target', input: 'target' },
  rules: [(tx) => (tx.to === tx.from ? 'TOKEN_BLACKLIST cannot target the sender itself' : undefined)],
  fields: { token: tokenField, blacklisted: booleanField('true bars the address, false clears it') },
  energy: 100n,
  async run(c, d) {
    const t = await loadOwnedToken(c.state, d.token, c.sender);
    if ((await isBlacklisted(c.state, t.id, c.to)) === d.blacklisted) {
      const at = { token: t.id, address: c.to };
      throw new TxFailure(d.blacklisted ? TOKEN.TOKEN_ALREADY_BLACKLISTED(at) : TOKEN.TOKEN_NOT_BLACKLISTED(at));
    }
    await setBlacklisted(c.state, t.id, c.to, d.blacklisted);
  },
  cli: {
    command: 'token blacklist',
    about: 'Blacklists an address for the token (owner only), or with --remove lifts it.',
    summary: '--token --address [--remove] (owner)',
    flags: [
      TOKEN_FLAG,
      addressFlag('address', 'the account to blacklist, 0x… or cairn1…', 'target'),
      { flag: 'remove', field: 'blacklisted', kind: 'unless', help: 'take it off the blacklist instead' },
    ],
    example: 'cairn token blacklist --token CUSD --address cairn1… --remove',
  },
});
