/**
 * A pure function of a key, remembered for the keys of late: up to `max` of them, all dropped at once when full (no
 * per-access bookkeeping: these sit on per-transaction paths). For values that cost far more than a Map lookup —
 * a key's hash, its address, its bytes — and keys that recur (a sender's, an account's). Never returns a stale
 * value: the function is pure.
 */
export function boundedMemo<K, V>(max: number, compute: (key: K) => V): (key: K) => V {
  const known = new Map<K, V>();
  return (key) => {
    let v = known.get(key);
    if (v === undefined) {
      v = compute(key);
      if (known.size >= max) known.clear();
      known.set(key, v);
    }
    return v;
  };
}
