import type { BreakerView, BridgeTransferView, BridgeTransfersPage, BridgeView, PoolView } from '../../views';
import { find, get } from '../api';
import { badge, coins, facts, link, table, timeline, units } from '../format';
import { html } from '../html';
import type { Page } from './types';

const POOL_HEAD = ['Asset', 'Locked', 'Reserved', 'Available', 'Breaker (this window)'];

const assetLink = (asset: string) => (asset === 'native' ? 'native coin' : link.token(asset));

/** The breaker of one pool: used of cap in this window, and the blocks until the window turns over. */
function breaker(b: BreakerView, height: number) {
  const used = BigInt(b.cap) === 0n ? 0 : Number((BigInt(b.used) * 1000n) / BigInt(b.cap)) / 10;
  const fill = String(Math.min(100, Math.round(used)));
  const blocks = html`${String(b.windowStart)}–${String(b.windowEnd)}`;
  const resets = String(Math.max(0, b.windowEnd + 1 - height));
  return html`<span class="bar" title="${used.toFixed(1)} % of the cap"><span style="width:${fill}%"></span></span>
    ${units(b.used)} of ${units(b.cap)} released (window ${String(b.window)}, blocks ${blocks});
    <strong class="countdown">resets in ${resets} blocks</strong>${b.exempted ? ' · over-cap exemption taken' : ''}`;
}

const poolRows = (pools: PoolView[], height: number) =>
  pools.map((p) => [
    assetLink(p.asset),
    units(p.locked),
    units(p.reserved),
    units(p.available),
    breaker(p.breaker, height),
  ]);

export async function bridge(): Promise<Page> {
  const [b, { transfers }] = await Promise.all([
    get<BridgeView>('/bridge'),
    get<BridgeTransfersPage>('/bridge/transfers?limit=100'),
  ]);
  return {
    title: 'Bridge',
    body: html`
      ${facts([
        [
          'Committee',
          b.committee
            ? `epoch ${b.committee.epoch}: ${b.committee.threshold} of ${b.committee.members.length} members, ` +
              `since ${b.committee.since}`
            : 'none installed yet (a governance proposal creates it)',
        ],
        ['Escrow', link.address(b.escrow)],
        ['Breaker', `${b.params.breakerBps / 100} % of a pool per window of ${b.params.windowBlocks} blocks`],
      ])}
      ${
        b.committee
          ? html`<h2>Committee members</h2>${table(
              ['Member'],
              b.committee.members.map((m) => [link.address(m.address, (m as typeof m & { native: string }).native)]),
            )}`
          : ''
      }
      <h2>Pools and circuit breaker</h2>
      ${table(POOL_HEAD, poolRows(b.pools, b.height), 'No pools yet.')}
      <h2>Transfers</h2>
      ${table(
        ['Id', 'Direction', 'Status', 'Asset', 'Amount', 'Chain', 'Countdown', 'Updated'],
        transfers.map((t) => [
          link.transfer(t.id),
          t.direction,
          badge(t.status),
          assetLink(t.asset),
          units(t.amount),
          t.chain,
          t.releaseInBlocks !== null ? `${t.releaseInBlocks} blocks` : '',
          link.block(t.updatedAt),
        ]),
        'No transfers yet.',
      )}`,
  };
}

/** A transfer the circuit breaker holds: the block it is released at, the blocks until then, why. */
function heldBanner(t: BridgeTransferView, releaseInBlocks: number) {
  const n = String(releaseInBlocks);
  const countdown = html`<strong class="countdown" id="release-countdown">in ${n} blocks</strong>`;
  const reason = t.reason ? html` — ${t.reason}` : '';
  const at = String(t.releaseAt);
  return html`<div class="banner">Held by the circuit breaker: released at block ${at}, ${countdown}${reason}</div>`;
}

export async function transfer(id: string): Promise<Page> {
  const [t, b] = await Promise.all([
    find<BridgeTransferView>(`/bridge/transfers/${encodeURIComponent(id)}`),
    get<BridgeView>('/bridge'),
  ]);
  if (!t) return { title: 'Transfer not found', body: html`<p>No bridge transfer <code>${id}</code>.</p>` };
  const pool = b.pools.find((p) => p.asset === t.asset);
  return {
    title: `Bridge transfer (${t.direction})`,
    body: html`
      ${t.status === 'DELAYED' && t.releaseInBlocks !== null ? heldBanner(t, t.releaseInBlocks) : ''}
      ${facts([
        ['Id', html`<span class="mono">${t.id}</span>`],
        ['Status', badge(t.status)],
        ['Direction', t.direction],
        ['Asset', assetLink(t.asset)],
        ['Amount', t.asset === 'native' ? coins(t.amount) : units(t.amount, 0)],
        [t.direction === 'out' ? 'Target chain' : 'Source chain', t.chain],
        ['From', t.from ? link.address(t.from) : undefined],
        ['Recipient', t.recipient ?? undefined],
        ['To', t.to ? link.address(t.to) : undefined],
        ['Source tx', t.sourceTx ?? undefined],
        ['Attested by epoch', t.epoch !== null ? String(t.epoch) : undefined],
        ['Settled by', t.settledBy ? link.address(t.settledBy) : undefined],
        ['Target tx', t.targetTx ?? undefined],
        ['Held', t.holds ? `${t.holds} time(s)` : undefined],
        ['Reason', t.reason ?? undefined],
        ['Created', link.block(t.createdAt)],
        ['Closed', t.closedAt !== null ? link.block(t.closedAt) : undefined],
        ['Breaker now', pool ? breaker(pool.breaker, b.height) : undefined],
      ])}
      <h2>State timeline</h2>${timeline(t.history)}`,
  };
}
