import { Type } from '@sinclair/typebox';
import { MAX_CHAIN_PAGE } from '../../protocol/params';
import { address, readAddress, flag, int, str, type PageRule } from './define';

/** The parameters and rules several groups of routes share. */

/** Most feeds: 20 by default, 100 at most (a larger limit is capped). */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const FEED_PAGE: PageRule = { def: DEFAULT_LIMIT, max: MAX_LIMIT, maxName: 'MAX_LIMIT' };
/** The feeds of small records kept by this node: /mempool, /logs, /guard. */
export const LONG_PAGE: PageRule = { def: 100, max: 1_000 };
/** /chain: full blocks, for sync. */
export const CHAIN_PAGE: PageRule = { def: 100, max: MAX_CHAIN_PAGE, maxName: 'MAX_CHAIN_PAGE', items: 'blocks' };
/** GET /security/alerts: the newest 50 by default, 500 at most. */
export const ALERTS_PAGE: PageRule = { def: 50, max: 500, items: 'alerts' };

/**
 * `before` on the feeds ordered by height (tokens, transfers, collections, names): read by the handler (a height, or a
 * cursor these feeds once returned).
 */
export const heightBefore = str(
  'A block height: only entries strictly below it, newest first ' +
    '(the `nextBefore` of the previous page: pages end with a whole block; absent or empty: from the newest). A ' +
    'cursor this feed returned before it paged by height is still accepted.',
  Type.Unsafe<number | string>({ type: 'integer', minimum: 0 }),
);
/** `before` on holders and a collection's items: an opaque cursor. */
export const cursor = str(
  'Opaque cursor: the `nextBefore` of the previous page of this feed (absent or empty: the first page)',
  // The SDK passes a page's nextBefore back as it came, whichever feed it came from.
  Type.Unsafe<string | number>({ type: 'string' }),
);

/** `?for=<address>` of a machine's instance: adds `actions`, what that address may send to it from the next block. */
export const forAddress = (what: string) => ({
  ...address(
    `Add \`actions\`: the transactions this address (0x or cairn1…) may send to the ${what} from the next ` +
      `block, with their height windows`,
  ),
  read: (s: string | undefined) => (s ? readAddress(s) : undefined),
});

/** `since` of the machine feeds: the handler refuses one above the head. */
export const since = (what: string) =>
  int(
    `Only ${what} after this height, with \`transitions\` and a \`cursor\` to pass as the next since ` +
      `(above the head: 400)`,
  );

/** With since: what `final` means (the AI and bridge feeds). */
export const FINAL = flag('With since: final heights only (true/false or 1/0)');
export const FEED_HELP =
  "With --since: the transitions after that height, whole blocks; poll again with the answer's cursor " +
  '(nothing is skipped or repeated); --final: final heights only.';

export const ADMIN_ERRORS = {
  401: 'Missing x-admin-token header',
  403: 'Wrong x-admin-token, or admin endpoints disabled (no token configured)',
} as const;
export const TOO_LARGE = 'Request body too large';
