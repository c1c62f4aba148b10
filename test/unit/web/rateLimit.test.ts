import { describe, expect, it } from 'vitest';
import { chainPageUnits, COST, jsonAnswerUnits, RateLimiter } from '../../../src/web/rateLimit';
import { MAX_RPC_BATCH, rpcWeight } from '../../../src/rpc/limits';

const limiter = () => new RateLimiter({ max: 240, windowMs: 10_000, maxClients: 100 });
const call = (method: string) => ({ jsonrpc: '2.0', id: 1, method, params: [] });

describe('RateLimiter weights', () => {
  it('counts a request by its weight: four batches of 50 fit a window, a fifth does not', () => {
    const l = limiter();
    for (let i = 0; i < 4; i++) expect(l.hit('a', 1000 + i, 50)).toEqual({ ok: true, remaining: 240 - 50 * (i + 1) });
    expect(l.hit('a', 1010, 50)).toEqual({ ok: false, retryAfterMs: 9_990, extended: false });
    expect(l.hit('b', 1010)).toEqual({ ok: true, remaining: 239 }); // a plain request weighs 1
    expect(l.hit('a', 11_000, 50).ok).toBe(true); // after Retry-After: a fresh window
  });

  it('never makes a request free or heavier than a window', () => {
    const l = limiter();
    expect(l.hit('a', 0, 0)).toEqual({ ok: true, remaining: 239 });
    expect(l.hit('a', 0, Number.NaN)).toEqual({ ok: true, remaining: 238 });
    expect(l.hit('a', 0, 0.2)).toEqual({ ok: true, remaining: 237 });
    expect(l.hit('b', 0, 10_000)).toEqual({ ok: true, remaining: 0 }); // fits a fresh window, whatever it weighs
    expect(l.hit('b', 1).ok).toBe(false);
  });

  it('charges an answer after it is served: the next request is refused, with Retry-After as usual', () => {
    const l = limiter();
    expect(l.hit('a', 0).ok).toBe(true);
    l.charge('a', 100, 200);
    expect(l.used('a', 100)).toBe(201);
    expect(l.hit('a', 200, 39).ok).toBe(true); // 240 exactly
    l.charge('a', 300, 1);
    expect(l.blockedFor('a', 300)).toBe(9_700); // to the end of the window
    expect(l.hit('a', 400)).toEqual({ ok: false, retryAfterMs: 10_000, extended: true });
  });

  it('a charge of more than a window blocks the client for a window more per whole window of units', () => {
    const l = limiter();
    l.hit('a', 0);
    l.charge('a', 50, 600); // 601 units: two and a half windows' worth
    expect(l.blockedFor('a', 50)).toBe(20_000 - 50);
    // A retry during the block never shortens it, and is refused with what is left.
    expect(l.hit('a', 1_000)).toEqual({ ok: false, retryAfterMs: 19_000, extended: true });
    expect(l.hit('a', 19_999).ok).toBe(false); // extends it to a full window from the retry
    expect(l.hit('a', 19_999 + 10_000)).toEqual({ ok: true, remaining: 239 });
  });

  it('charges into a fresh window when the answer comes after the request window ended; not an unknown client', () => {
    const l = limiter();
    l.hit('a', 0);
    l.charge('a', 12_000, 100);
    expect(l.used('a', 12_000)).toBe(100);
    l.charge('nobody', 0, 1_000);
    expect(l.size).toBe(1);
    l.charge('a', 12_000, 0);
    l.charge('a', 12_000, -5);
    expect(l.used('a', 12_000)).toBe(100);
  });

  it('keeps its table bounded under charges', () => {
    const l = new RateLimiter({ max: 5, windowMs: 1000, maxClients: 100 });
    for (let i = 0; i < 10_000; i++) {
      l.hit(`k${i}`, i);
      l.charge(`k${i}`, i, 50);
    }
    expect(l.size).toBeLessThanOrEqual(100);
  });
});

describe('what requests weigh (COST)', () => {
  it('a short answer weighs nothing more; a long one a unit per 32 KiB', () => {
    expect(jsonAnswerUnits(0)).toBe(0);
    expect(jsonAnswerUnits(COST.jsonBytesPerUnit - 1)).toBe(0);
    expect(jsonAnswerUnits(214_000)).toBe(6); // a full block's GET /blocks/:ref
    expect(jsonAnswerUnits(8_200_000)).toBe(250); // 50 full blocks with their transactions
  });

  it('a /chain page weighs its blocks and bytes, JSON dearer than binary', () => {
    // 2,000 empty blocks (~5.6 kB each as JSON): ~200 ms to build, where a plain read is under 1 ms.
    expect(chainPageUnits(2_000, 11_200_000, false)).toBe(841);
    // One full block as JSON (2.9 MB, ~22 ms).
    expect(chainPageUnits(1, 2_900_000, false)).toBe(88);
    // A peer's 200-block binary page of empty blocks (~2.5 kB each), and a 16 MiB one of full blocks.
    expect(chainPageUnits(200, 500_000, true)).toBe(26);
    expect(chainPageUnits(12, 16 * 1024 * 1024, true)).toBe(65);
  });

  it('a JSON-RPC body weighs each of its calls, the heavy ones more', () => {
    expect(rpcWeight(call('eth_blockNumber'))).toBe(1);
    expect(rpcWeight(Array.from({ length: 50 }, () => call('eth_chainId')))).toBe(50);
    expect(rpcWeight(Array.from({ length: 50 }, () => call('eth_getBlockByNumber')))).toBe(100);
    expect(rpcWeight([call('eth_getLogs'), call('eth_call'), call('eth_estimateGas'), 7, null])).toBe(12);
    expect(rpcWeight({ method: '__proto__' })).toBe(1);
    // What the dispatcher refuses whole costs one unit.
    expect(rpcWeight([])).toBe(1);
    expect(rpcWeight(Array.from({ length: MAX_RPC_BATCH + 1 }, () => call('eth_call')))).toBe(1);
  });
});
