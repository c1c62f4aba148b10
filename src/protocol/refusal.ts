/**
 * Why the protocol refuses something: a stable `code` programs switch on, the `reason` people
 * read, and the figures (`meta`) behind both. The reason is rendered from code and metadata in
 * one place — the catalog of the module that refuses (`modules/<m>/errors.ts`) — so a reader,
 * the RPC edge or a client never matches wording: it reads the code.
 *
 * The reasons are part of the interface (the spec's and docs/PROTOCOL.md's refusal strings,
 * byte for byte); codes are added beside them, never instead.
 */
export interface Refusal<C extends string = string> {
  readonly code: C;
  readonly reason: string;
  readonly meta: Readonly<Record<string, unknown>>;
}

type Wording = (meta: any) => string;

/** A catalog's makers: one per code, taking that code's metadata (or nothing when its words take none). */
export type RefusalMakers<D extends Record<string, Wording>> = {
  readonly [K in keyof D & string]: (...meta: Parameters<D[K]>) => Refusal<K>;
};

/** Every code a catalog declares, with its wording (the docs and the uniqueness test read these). */
export interface RefusalCatalog {
  readonly module: string;
  readonly codes: readonly string[];
  /** A code's wording with each metadata field shown as `<field>` (docs/API.md "Refusal codes"). */
  template(code: string): string;
}

/** The codes of a catalog built by `refusals`. */
export type CodeOf<M> = Exclude<keyof M, 'catalog'> & string;

const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

/**
 * A module's refusals, as code → wording of its metadata:
 *   export const AI = refusals('ai', { AI_WINDOW_CLOSED: (m: { task: Hex; closedAt: number }) => `…` });
 *   throw new TxFailure(AI.AI_WINDOW_CLOSED({ task, closedAt }));
 */
export function refusals<const D extends Record<string, Wording>>(
  module: string,
  words: D,
): RefusalMakers<D> & { readonly catalog: RefusalCatalog } {
  const makers: Record<string, unknown> = {};
  for (const [code, word] of Object.entries(words)) {
    if (!CODE.test(code)) throw new Error(`refusal code ${code} (${module}) is not UPPER_SNAKE_CASE`);
    makers[code] = (meta?: Record<string, unknown>): Refusal =>
      Object.freeze({ code, reason: word(meta), meta: meta ?? {} });
  }
  const placeholders = new Proxy({}, { get: (_t, k) => (typeof k === 'string' ? `<${k}>` : undefined) });
  makers.catalog = Object.freeze({
    module,
    codes: Object.freeze(Object.keys(words)),
    template: (code: string) => {
      try {
        return words[code](placeholders);
      } catch {
        return `(${code}: see ${module})`;
      }
    },
  });
  return makers as RefusalMakers<D> & { readonly catalog: RefusalCatalog };
}

/**
 * The same refusal told from an outer operation (a META_TX, a multisig): the code stays the inner one, so programs
 * still see why.
 */
export const wrapRefusal = (inner: Refusal, prefix: string): Refusal =>
  Object.freeze({ code: inner.code, reason: `${prefix}${inner.reason}`, meta: inner.meta });
