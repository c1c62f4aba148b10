/**
 * Reads derived from the head alone (its hash and finalized height), built once per head and
 * shared by every request until the head moves: the most polled reads (/status, the latest
 * block, accounts) stop re-reading the state trie per request. A value whose build fails is
 * not kept.
 */
export class HeadMemo {
  private key = '';
  private readonly values = new Map<string, Promise<unknown>>();

  constructor(
    private readonly head: () => { hash: string; finalizedHeight: number },
    /** Entries kept per head (a flood of distinct keys starts over rather than grows). */
    private readonly max = 4096,
  ) {}

  get<T>(name: string, build: () => Promise<T>): Promise<T> {
    const h = this.head();
    const key = `${h.hash}/${h.finalizedHeight}`;
    if (key !== this.key) {
      this.key = key;
      this.values.clear();
    }
    let v = this.values.get(name) as Promise<T> | undefined;
    if (!v) {
      if (this.values.size >= this.max) this.values.clear();
      const built = build();
      v = built;
      this.values.set(name, built);
      built.catch(() => {
        if (this.values.get(name) === built) this.values.delete(name);
      });
    }
    return v;
  }
}

/** A response body already serialized: sent as is (a memoized read is stringified once). */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Memoized per head, serialized once. */
export const memoJson = (memo: HeadMemo, name: string, build: () => Promise<unknown>): Promise<JsonText> =>
  memo.get(name, async () => new JsonText(JSON.stringify(await build())));
