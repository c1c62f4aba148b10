import { TxFailure } from '../../protocol/handler';
import { TOKEN } from './errors';
import { addressFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { addressField, tokenAmountField } from '../tx/fields';
import { AMOUNT_HELP, amountField, amountFlag, TOKEN_FLAG, tokenField } from './fields';
import {
  loadOwnedToken,
  loadToken,
  loadUnpausedToken,
  moveTokens,
  requireCanSend,
  requireNotBlacklisted,
  requireUnpaused,
} from './ledger';
import { getAllowance, setAllowance } from './records';

/** TOKEN_TRANSFER: moves `amount` from the sender to `to`. */
export const tokenTransfer = defineTx({
  type: 'TOKEN_TRANSFER',
  module: 'tokens',
  summary: 'moves amount from the sender to `to`',
  to: { kind: 'required', role: 'recipient' },
  rules: [(tx) => (tx.to === tx.from ? 'TOKEN_TRANSFER cannot send to the sender itself' : undefined)],
  fields: { token: tokenField, amount: amountField },
  energy: 150n,
  async run(c, d) {
    const t = await loadUnpausedToken(c.state, d.token);
    await requireCanSend(c, t, c.sender, 'sender');
    await requireNotBlacklisted(c.state, t, c.to, 'recipient');
    await moveTokens(c, t, c.sender, c.to, d.amount);
  },
  cli: {
    command: 'token transfer',
    about: 'Sends tokens from the sender to --to.',
    summary: '--token --to --amount',
    flags: [TOKEN_FLAG, addressFlag('to', 'recipient, 0x… or cairn1…'), amountFlag()],
    example: 'cairn token transfer --token CUSD --to cairn1… --amount 2500000 --wait included',
  },
});

/** TOKEN_APPROVE: sets (not adds) the allowance of spender `to` over the sender's tokens; "0" clears it. */
export const tokenApprove = defineTx({
  type: 'TOKEN_APPROVE',
  module: 'tokens',
  summary: 'sets (not adds) the allowance of spender `to` over the sender\'s tokens; "0" clears it',
  to: { kind: 'required', role: 'spender', input: 'spender' },
  rules: [(tx) => (tx.to === tx.from ? 'TOKEN_APPROVE cannot approve the sender itself' : undefined)],
  fields: {
    token: tokenField,
    amount: tokenAmountField("integer string, 0 to 2^256 − 1 of the token's base units", true),
  },
  energy: 100n,
  async run(c, d) {
    const t = await loadToken(c.state, d.token);
    await setAllowance(c.state, t.id, c.sender, c.to, d.amount);
  },
  cli: {
    command: 'token approve',
    about: `Sets how much --spender may move from the sender's balance with
"cairn token transfer-from" (replaces the previous allowance; 0 revokes it).`,
    summary: '--token --spender --amount (allowance; 0 revokes)',
    flags: [
      TOKEN_FLAG,
      addressFlag('spender', 'the account allowed to spend, 0x… or cairn1…'),
      amountFlag(`the allowance (0 revokes), ${AMOUNT_HELP}`),
    ],
    example: 'cairn token approve --token CUSD --spender 0x… --amount 1000000',
  },
});

/** TOKEN_TRANSFER_FROM: the sender (spender) moves `amount` of data.from's tokens to `to`, spending allowance. */
export const tokenTransferFrom = defineTx({
  type: 'TOKEN_TRANSFER_FROM',
  module: 'tokens',
  summary: "the sender (a spender) moves amount of data.from's tokens to `to`, spending its allowance",
  to: { kind: 'required', role: 'recipient' },
  fields: {
    token: tokenField,
    from: {
      ...addressField('the holder who approved the sender (0x, any letter case)'),
      refine: (tx, from) =>
        from === tx.from
          ? 'TOKEN_TRANSFER_FROM data.from is the sender: use TOKEN_TRANSFER'
          : tx.to === from
            ? 'TOKEN_TRANSFER_FROM cannot send to the owner itself (to equals data.from)'
            : undefined,
    },
    amount: amountField,
  },
  checkOrder: ['from', 'token', 'amount'],
  energy: 200n,
  async run(c, d) {
    const t = await loadUnpausedToken(c.state, d.token);
    await requireCanSend(c, t, d.from, 'owner');
    await requireNotBlacklisted(c.state, t, c.sender, 'spender');
    await requireNotBlacklisted(c.state, t, c.to, 'recipient');
    const allowance = await getAllowance(c.state, t.id, d.from, c.sender);
    if (allowance < d.amount)
      throw new TxFailure(
        TOKEN.TOKEN_ALLOWANCE_TOO_LOW({ token: t.id, owner: d.from, spender: c.sender, allowance, amount: d.amount }),
      );
    await setAllowance(c.state, t.id, d.from, c.sender, allowance - d.amount);
    await moveTokens(c, t, d.from, c.to, d.amount);
  },
  cli: {
    command: 'token transfer-from',
    about: 'Moves tokens from --from (who approved the sender) to --to, using the allowance.',
    summary: '--token --from --to --amount (spend an allowance)',
    flags: [
      TOKEN_FLAG,
      addressFlag('from', 'the holder who approved the sender'),
      addressFlag('to', 'recipient'),
      amountFlag(),
    ],
    example: 'cairn token transfer-from --token CUSD --from 0x… --to 0x… --amount 500000',
  },
});

/** TOKEN_MINT: the owner of a mintable token creates `amount` new tokens for `to`. */
export const tokenMint = defineTx({
  type: 'TOKEN_MINT',
  module: 'tokens',
  summary: 'the owner of a mintable token creates amount new tokens for `to`',
  to: { kind: 'required', role: 'recipient' },
  fields: { token: tokenField, amount: amountField },
  energy: 150n,
  async run(c, d) {
    const t = await loadOwnedToken(c.state, d.token, c.sender);
    if (!t.mintable) throw new TxFailure(TOKEN.TOKEN_NOT_MINTABLE({ token: t.id }));
    requireUnpaused(t);
    await requireNotBlacklisted(c.state, t, c.to, 'recipient');
    await moveTokens(c, t, null, c.to, d.amount);
  },
  cli: {
    command: 'token mint',
    about: 'Creates new tokens for --to. Only the owner of a mintable token may mint.',
    summary: '--token --to --amount (owner of a mintable token)',
    flags: [TOKEN_FLAG, addressFlag('to', 'recipient of the new tokens'), amountFlag()],
    example: 'cairn token mint --token CUSD --to 0x… --amount 1000000',
  },
});

/** TOKEN_BURN: any holder destroys `amount` of its own tokens. */
export const tokenBurn = defineTx({
  type: 'TOKEN_BURN',
  module: 'tokens',
  summary: 'any holder destroys amount of its own tokens',
  to: { kind: 'none' },
  fields: { token: tokenField, amount: amountField },
  energy: 150n,
  async run(c, d) {
    const t = await loadUnpausedToken(c.state, d.token);
    await requireCanSend(c, t, c.sender, 'sender');
    await moveTokens(c, t, c.sender, null, d.amount);
  },
  cli: {
    command: 'token burn',
    about: "Destroys tokens from the sender's own balance (the supply shrinks).",
    summary: '--token --amount',
    flags: [TOKEN_FLAG, amountFlag()],
    example: 'cairn token burn --token CUSD --amount 1000',
  },
});
