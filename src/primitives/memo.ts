/**
 * A pure function of a key, remembered for the keys of late: up to `max` of them, all dropped at once when full (no
 * per-access bookkeeping: these sit on per-transaction paths). For values that cost far more than a Map lookup —
 * a key's hash, its address, its bytes — and keys that recur (a sender's, an account's). Never returns a stale
 * value: the function is pure. `inputs`, when given, are what the value is computed from and must be determined by the
 * key (a hash of them, say): only the key is remembered.
 */
export function boundedMemo<K, V, A extends unknown[] = []>(
  max: number,
  compute: (key: K, ...inputs: A) => V,
): (key: K, ...inputs: A) => V {
  const known = new Map<K, V>();
  return (key, ...inputs) => {
    let v = known.get(key);
    if (v === undefined) {
      v = compute(key, ...inputs);
      if (known.size >= max) known.clear();
      known.set(key, v);
    }
    return v;
  };
}
