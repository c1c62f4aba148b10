import type { AccountView, AddressTxsPage } from '../../views';
import { find, get } from '../api';
import { badge, coins, facts, link, table, units } from '../format';
import { html } from '../html';
import type { Page } from './types';

export async function account(addr: string): Promise<Page> {
  const a = await find<AccountView>(`/address/${encodeURIComponent(addr)}`);
  if (!a)
    return {
      title: 'Account not found',
      body: html`<p>No account <code>${addr}</code>: it was never funded and holds no tokens.</p>`,
    };
  const { txs } = await get<AddressTxsPage>(`/address/${a.address}/txs?limit=25`);
  return {
    title: 'Account',
    body: html`
      ${facts([
        ['Address', html`<span class="mono">${a.address}</span>`],
        ['Native', html`<span class="mono">${a.native}</span>`],
        ['Balance', coins(a.balance)],
        ['Staked', coins(a.staked)],
        ['Nonce', `${a.nonce} (next ${a.nextNonce})`],
        ['Energy', `${a.energy.toLocaleString('en')} of ${a.maxEnergy.toLocaleString('en')}`],
        ['Validator', a.isValidator ? html`yes (${html`<a href="#/validators">validators</a>`})` : 'no'],
        ['Multisig', a.permissioned ? 'yes' : undefined],
      ])}
      <h2>Tokens</h2>
      ${table(
        ['Token', 'Name', 'Balance'],
        a.tokens.map((t) => [link.token(t.token, t.symbol), t.name, units(t.balance, t.decimals)]),
        'No FT20 tokens.',
      )}
      <h2>Transactions</h2>
      ${table(
        ['Id', 'Block', 'Type', 'From', 'To', 'Amount', 'Status'],
        txs.map((t) => [
          link.tx(t.id),
          t.blockHeight !== undefined ? link.block(t.blockHeight) : '',
          t.type,
          link.address(t.from),
          link.address(t.to),
          units(t.amount),
          badge(t.status),
        ]),
        'No transactions.',
      )}`,
  };
}
