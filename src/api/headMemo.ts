import type { MaybePromise } from '../primitives/maybe';

/**
 * Reads derived from the head alone (its hash and finalized height), built once per head and
 * shared by every request until the head moves: the most polled reads (/status, the latest
 * block, accounts) stop re-reading the state trie per request. Once built, a value is handed
 * out as is (no promise), so a memoized read answers synchronously. A value whose build
 * fails is not kept.
 */
export class HeadMemo {
  private hash = '';
  private finalized = -1;
  private readonly values = new Map<string, { value: unknown } | { pending: Promise<unknown> }>();

  constructor(
    private readonly head: () => { hash: string; finalizedHeight: number },
    /** Entries kept per head (a flood of distinct keys starts over rather than grows). */
    private readonly max = 4096,
  ) {}

  get<T>(name: string, build: () => Promise<T>): MaybePromise<T> {
    const h = this.head();
    if (h.hash !== this.hash || h.finalizedHeight !== this.finalized) {
      this.hash = h.hash;
      this.finalized = h.finalizedHeight;
      this.values.clear();
    }
    const v = this.values.get(name);
    if (v) return 'value' in v ? (v.value as T) : (v.pending as Promise<T>);
    if (this.values.size >= this.max) this.values.clear();
    const entry = { pending: build() };
    this.values.set(name, entry);
    // Settled: replace the promise by its value, unless the head moved (or the entry went) meanwhile.
    entry.pending.then(
      (value) => this.values.get(name) === entry && this.values.set(name, { value }),
      () => this.values.get(name) === entry && this.values.delete(name),
    );
    return entry.pending;
  }
}

/**
 * A response body already serialized: sent as is. One that is sent many times (a memoized
 * read, a final transaction) is also encoded once (`shared`), so that each answer is a copy
 * of bytes rather than a UTF-8 encoding of the text.
 */
export class JsonText {
  readonly bytes: Buffer | undefined;
  constructor(
    readonly text: string,
    shared = false,
  ) {
    this.bytes = shared ? Buffer.from(text) : undefined;
  }
  static shared(text: string): JsonText {
    return new JsonText(text, true);
  }
}

/** Memoized per head, serialized once. */
export const memoJson = (memo: HeadMemo, name: string, build: () => Promise<unknown>): MaybePromise<JsonText> =>
  memo.get(name, async () => JsonText.shared(JSON.stringify(await build())));
