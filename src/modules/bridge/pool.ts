import { credit, debit } from '../../protocol/accounts';
import type { ChainEvent } from '../../protocol/events';
import type { ExecState } from '../../protocol/execState';
import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { BRIDGE_ESCROW_ADDRESS } from '../../protocol/params';
import { recordKey } from '../../protocol/records';
import type { Address } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import { loadUnpausedToken, moveTokens, requireCanSend, requireNotBlacklisted } from '../tokens/ledger';
import { BRIDGE } from './errors';

/**
 * The bridge's pools and its circuit breaker. Each asset ("native" or a token id) has a pool:
 * what BRIDGE_OUT locked in the bridge escrow (0x…79) and what inbound transfers have
 * reserved of it. An inbound transfer reserves its amount when attested and is paid from the
 * pool, so the bridge never releases more than was locked (conservation).
 */
export type Asset = 'native' | Hex;

export interface PoolRecord {
  asset: Asset;
  /** In the escrow now, base units. */
  locked: string;
  /** Of `locked`, promised to inbound transfers attested or delayed and not yet paid. */
  reserved: string;
  /** Totals ever locked by BRIDGE_OUT and released by inbound transfers. */
  lockedTotal: string;
  releasedTotal: string;
}

/**
 * The breaker of one asset in one window of BRIDGE_WINDOW_BLOCKS blocks: releases may take
 * `BRIDGE_BREAKER_BPS` of the pool as it stood at the window's first release (`base`).
 */
export interface BreakerRecord {
  asset: Asset;
  window: number;
  base: string;
  used: string;
  /** The window's one release over the cap, for a transfer that already waited a window, was taken. */
  exempted: boolean;
}

const poolKey = (a: Asset) => recordKey('bridge', 'pool', a);
const breakerKey = (a: Asset) => recordKey('bridge', 'breaker', a);
const POOLS_KEY = recordKey('bridge', 'pools');

const emptyPool = (asset: Asset): PoolRecord => ({
  asset,
  locked: '0',
  reserved: '0',
  lockedTotal: '0',
  releasedTotal: '0',
});
export const getPool = async (s: ExecState, a: Asset): Promise<PoolRecord> =>
  (await s.getRecord<PoolRecord>(poolKey(a))) ?? emptyPool(a);
/** Every asset that has a pool, sorted. */
export const getPoolAssets = async (s: ExecState): Promise<Asset[]> => (await s.getRecord<Asset[]>(POOLS_KEY)) ?? [];
export const getBreaker = (s: ExecState, a: Asset): Promise<BreakerRecord | undefined> =>
  s.getRecord<BreakerRecord>(breakerKey(a));

async function putPool(s: ExecState, p: PoolRecord): Promise<void> {
  await s.putRecord(poolKey(p.asset), p);
  const all = await getPoolAssets(s);
  if (!all.includes(p.asset)) await s.putRecord(POOLS_KEY, [...all, p.asset].sort());
}

const add = (a: string, b: bigint) => (BigInt(a) + b).toString();

/** The amount of `asset` an inbound transfer may still reserve. */
export const available = (p: PoolRecord): bigint => BigInt(p.locked) - BigInt(p.reserved);

/** BRIDGE_OUT: `amount` of the sender's coins or tokens into the escrow, and into the pool. */
export async function lock(
  c: { state: ExecState; height: number; events: ChainEvent[] },
  asset: Asset,
  from: Address,
  amount: bigint,
): Promise<void> {
  if (asset === 'native') {
    await debit(c.state, from, amount);
    await credit(c.state, BRIDGE_ESCROW_ADDRESS, amount, c.height);
  } else {
    const t = await loadUnpausedToken(c.state, asset);
    // As TOKEN_TRANSFER: a blacklisted or frozen holder cannot send (a freeze is not escaped by bridging out).
    await requireCanSend(c, t, from, 'sender');
    await moveTokens(c, t, from, BRIDGE_ESCROW_ADDRESS, amount);
  }
  const p = await getPool(c.state, asset);
  await putPool(c.state, { ...p, locked: add(p.locked, amount), lockedTotal: add(p.lockedTotal, amount) });
}

/**
 * BRIDGE_IN: promises `amount` of the pool to an attested transfer; refused above what is locked and not yet promised.
 */
export async function reserve(s: ExecState, asset: Asset, amount: bigint): Promise<void> {
  const p = await getPool(s, asset);
  if (amount > available(p)) {
    throw new TxFailure(
      BRIDGE.BRIDGE_POOL_SHORT({
        asset,
        free: available(p),
        locked: BigInt(p.locked),
        reserved: BigInt(p.reserved),
        amount,
      }),
    );
  }
  await putPool(s, { ...p, reserved: add(p.reserved, amount) });
}

/** A refused transfer's promise is withdrawn. */
export async function unreserve(s: ExecState, asset: Asset, amount: bigint): Promise<void> {
  const p = await getPool(s, asset);
  await putPool(s, { ...p, reserved: add(p.reserved, -amount) });
}

export const windowOf = (height: number, windowBlocks: bigint): number => Number(BigInt(height) / windowBlocks);

/**
 * Pays a reserved inbound transfer out of the escrow if the breaker lets it. A `waited` one (a
 * DELAYED transfer at its release height) that does not fit takes the window's single
 * exemption if it is still free, so a transfer larger than a whole window's share leaves
 * after waiting, whatever smaller releases came first.
 * Throws TxFailure: BRIDGE_BREAKER_FULL (wait for the next window, `meta.until`) or another code (cannot be paid:
 * refused).
 */
export async function release(
  c: { state: ExecState; height: number },
  t: { asset: Asset; to: Address; amount: bigint; waited: boolean },
): Promise<ChainEvent[]> {
  const s = c.state;
  const prm = await loadParams(s);
  const pool = await getPool(s, t.asset);
  const window = windowOf(c.height, prm.BRIDGE_WINDOW_BLOCKS);
  const prev = await getBreaker(s, t.asset);
  const b: BreakerRecord =
    prev && prev.window === window ? prev : { asset: t.asset, window, base: pool.locked, used: '0', exempted: false };
  const cap = (BigInt(b.base) * prm.BRIDGE_BREAKER_BPS) / 10_000n;
  const used = BigInt(b.used);
  const over = used + t.amount > cap;
  // One transfer per window that waited a whole window may go over the cap, however much
  // smaller releases took first: a transfer larger than a window's share is never stuck.
  const exempt = over && t.waited && !b.exempted;
  if (over && !exempt) {
    const until = (window + 1) * Number(prm.BRIDGE_WINDOW_BLOCKS);
    throw new TxFailure(
      BRIDGE.BRIDGE_BREAKER_FULL({
        asset: t.asset,
        allowed: cap - used < 0n ? 0n : cap - used,
        window,
        base: BigInt(b.base),
        until,
      }),
    );
  }
  const events: ChainEvent[] = [];
  if (t.asset === 'native') {
    await debit(s, BRIDGE_ESCROW_ADDRESS, t.amount);
    await credit(s, t.to, t.amount, c.height);
  } else {
    const token = await loadUnpausedToken(s, t.asset);
    await requireNotBlacklisted(s, token, t.to, 'recipient');
    await moveTokens({ state: s, height: c.height, events }, token, BRIDGE_ESCROW_ADDRESS, t.to, t.amount);
  }
  await s.putRecord(breakerKey(t.asset), {
    ...b,
    used: add(b.used, t.amount),
    exempted: b.exempted || exempt,
  } satisfies BreakerRecord);
  await putPool(s, {
    ...pool,
    locked: add(pool.locked, -t.amount),
    reserved: add(pool.reserved, -t.amount),
    releasedTotal: add(pool.releasedTotal, t.amount),
  });
  return events;
}
