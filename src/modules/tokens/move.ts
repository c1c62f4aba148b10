import type { SignedTx } from '../../protocol/types';
import { defineAssetTx, refuse } from '../assets/define';
import { TxFailure } from '../../protocol/handler';
import { field } from './fields';
import { loadOwnedToken, loadToken, loadUnpausedToken, moveTokens, requireCanSend, requireNotBlacklisted, requireUnpaused } from './ledger';
import { getAllowance, setAllowance } from './records';

/** data {token, amount} with amount 1..2^256 − 1 (or 0..2^256 − 1 with `allowZero`). */
const tokenAndAmount = (allowZero = false) => (tx: SignedTx, d: Record<string, unknown>) => ({
  token: field.token(tx, d),
  amount: field.amount(tx, d, 'amount', allowZero),
});

/** TOKEN_TRANSFER: moves `amount` from the sender to `to`. */
export const tokenTransferHandler = defineAssetTx({
  type: 'TOKEN_TRANSFER',
  to: 'recipient',
  required: ['token', 'amount'],
  parse(tx, d) {
    if (tx.to === tx.from) refuse('TOKEN_TRANSFER cannot send to the sender itself');
    return tokenAndAmount()(tx, d);
  },
  async run(c, d) {
    const t = await loadUnpausedToken(c.state, d.token);
    await requireCanSend(c, t, c.sender, 'sender');
    await requireNotBlacklisted(c.state, t, c.party!, 'recipient');
    await moveTokens(c, t, c.sender, c.party, d.amount);
  },
});

/** TOKEN_APPROVE: sets (not adds) the allowance of spender `to` over the sender's tokens; "0" clears it. */
export const tokenApproveHandler = defineAssetTx({
  type: 'TOKEN_APPROVE',
  to: 'spender',
  required: ['token', 'amount'],
  parse(tx, d) {
    if (tx.to === tx.from) refuse('TOKEN_APPROVE cannot approve the sender itself');
    return tokenAndAmount(true)(tx, d);
  },
  async run(c, d) {
    const t = await loadToken(c.state, d.token);
    await setAllowance(c.state, t.id, c.sender, c.party!, d.amount);
  },
});

/** TOKEN_TRANSFER_FROM: the sender (spender) moves `amount` of data.from's tokens to `to`, spending allowance. */
export const tokenTransferFromHandler = defineAssetTx({
  type: 'TOKEN_TRANSFER_FROM',
  to: 'recipient',
  required: ['token', 'from', 'amount'],
  parse(tx, d) {
    const from = field.address(tx, d, 'from');
    if (from === tx.from) refuse('TOKEN_TRANSFER_FROM data.from is the sender: use TOKEN_TRANSFER');
    if (tx.to === from) refuse('TOKEN_TRANSFER_FROM cannot send to the owner itself (to equals data.from)');
    return { ...tokenAndAmount()(tx, d), from };
  },
  async run(c, d) {
    const t = await loadUnpausedToken(c.state, d.token);
    await requireCanSend(c, t, d.from, 'owner');
    await requireNotBlacklisted(c.state, t, c.sender, 'spender');
    await requireNotBlacklisted(c.state, t, c.party!, 'recipient');
    const allowance = await getAllowance(c.state, t.id, d.from, c.sender);
    if (allowance < d.amount) throw new TxFailure('allowance too low');
    await setAllowance(c.state, t.id, d.from, c.sender, allowance - d.amount);
    await moveTokens(c, t, d.from, c.party, d.amount);
  },
});

/** TOKEN_MINT: the owner of a mintable token creates `amount` new tokens for `to`. */
export const tokenMintHandler = defineAssetTx({
  type: 'TOKEN_MINT',
  to: 'recipient',
  required: ['token', 'amount'],
  parse: tokenAndAmount(),
  async run(c, d) {
    const t = await loadOwnedToken(c.state, d.token, c.sender);
    if (!t.mintable) throw new TxFailure('token is not mintable');
    requireUnpaused(t);
    await requireNotBlacklisted(c.state, t, c.party!, 'recipient');
    await moveTokens(c, t, null, c.party, d.amount);
  },
});

/** TOKEN_BURN: any holder destroys `amount` of its own tokens. */
export const tokenBurnHandler = defineAssetTx({
  type: 'TOKEN_BURN',
  to: 'none',
  required: ['token', 'amount'],
  parse: tokenAndAmount(),
  async run(c, d) {
    const t = await loadUnpausedToken(c.state, d.token);
    await requireCanSend(c, t, c.sender, 'sender');
    await moveTokens(c, t, c.sender, null, d.amount);
  },
});
