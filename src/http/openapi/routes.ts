import { PROPOSAL_STATES, TASK_MODES, TASK_STATES, TRANSFER_STATES } from '../../api/ports';
import { PROMETHEUS_CONTENT_TYPE } from '../metrics';
import { CHAIN_PAGE, FEED_PAGE, LONG_PAGE, type PageRule } from '../params';
import { ALERTS_PAGE } from '../routes/admin';
import { DEV_MINE_MAX } from '../routes/dev';

/**
 * What the OpenAPI document says of each route that the code cannot tell by itself: its
 * parameters, request body and success shape (by view type name: src/views), and the error
 * statuses it answers. Keyed by the ENDPOINTS entry (routes/index.ts) it describes, so the
 * two lists cannot part: `npm run docs:openapi` refuses a route missing here or left over,
 * and a parameter named in the entry but not here (or the reverse).
 */

export type JsonSchema = Record<string, unknown>;

export interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  description: string;
  schema: JsonSchema;
}

/** A response body: a view type of src/views by name (its JSON Schema is generated), or another media type. */
export type Body = { view: string } | { text: string; description: string };

export interface OperationSpec {
  /** The route as ENDPOINTS writes it: `GET /blocks?limit&from`. */
  endpoint: string;
  params?: ParamSpec[];
  /** The request body's view type (POST); `optional`: an empty body is accepted. */
  body?: { view: string; optional?: boolean };
  /** The 200 answer; `GET /` answers HTML or JSON by Accept. */
  ok: Body | { html: true; json: string };
  /** Statuses this route answers with `{error}` beyond those of every route (429, 500, 503), with when. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** A non-200 answer that is not `{error}` (GET /health/ready: 503 with the readiness view). */
  otherwise?: { status: 503; view: string; description: string };
  /** x-admin-token: required (admin routes), or optional (it shows more). */
  admin?: 'required' | 'optional';
  /** More than the ENDPOINTS line says. */
  description?: string;
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503;

/** Every route may answer these, before or around its own work (server.ts, route.ts). */
export const COMMON_ERRORS: Record<429 | 500 | 503, string> = {
  429: 'Rate limit exceeded, or the client is blocked by the guard (Retry-After: seconds to wait; a request before then extends the block)',
  500: 'Internal error (logged with the request id)',
  503: 'The node is starting, or syncing far behind its peers (Retry-After); for some routes also a dependency briefly unavailable',
};

export const ERROR_TITLES: Record<ErrorStatus, string> = {
  400: 'Malformed parameter, id or body',
  401: 'Missing x-admin-token header',
  403: 'Wrong x-admin-token, or admin endpoints disabled (no token configured)',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body too large',
  429: COMMON_ERRORS[429],
  500: COMMON_ERRORS[500],
  502: 'A service the node called failed (the solc compiler worker)',
  503: COMMON_ERRORS[503],
};

const int = (min = 0, max?: number, dflt?: number): JsonSchema => ({
  type: 'integer', minimum: min, ...(max !== undefined ? { maximum: max } : {}), ...(dflt !== undefined ? { default: dflt } : {}),
});
const hex32 = { type: 'string', pattern: '^0[xX][0-9a-fA-F]{64}$' };

/** A feed's `limit` (http/params.ts pageSize): above the maximum the page is capped, not refused. */
const limit = ({ def, max, maxName }: PageRule = FEED_PAGE, what = 'Page size'): ParamSpec => ({
  name: 'limit', in: 'query', schema: int(1, undefined, def),
  description: `${what} (${def} when absent or empty); above ${maxName ? `${maxName} (${max})` : max} the page is served capped at ${max} and says so in \`capped\`; 0 or not an integer is a 400`,
});
const cursor: ParamSpec = {
  name: 'before', in: 'query', description: 'Opaque cursor: the `nextBefore` of the previous page of this feed (absent or empty: the first page)', schema: { type: 'string' },
};
/** `before` on the token, NFT and name feeds ordered by height. */
const heightBefore: ParamSpec = {
  name: 'before', in: 'query', schema: int(),
  description: 'A block height: only entries strictly below it, newest first (the `nextBefore` of the previous page: pages end with a whole block; absent or empty: from the newest). A cursor this feed returned before it paged by height is still accepted.',
};
const address = (name: string): ParamSpec => ({
  name, in: 'path', required: true, description: 'Account: 0x + 40 hex digits (any case) or the native cairn1… form', schema: { type: 'string' },
});
/** `?for=<address>` of a machine's instance: adds `actions`, what that address may send to it from the next block. */
const forParam = (what: string): ParamSpec => ({
  ...address('for'), in: 'query', required: false, description: `Add \`actions\`: the transactions this address (0x or cairn1…) may send to the ${what} from the next block, with their height windows`,
});
const id64 = (what: string): ParamSpec => ({ name: 'id', in: 'path', required: true, description: `${what}: 0x + 64 hex digits`, schema: hex32 });
const oneOf = (name: string, values: readonly string[], what: string): ParamSpec => ({
  name, in: 'query', description: `${what} (any case; one of ${values.join(', ')})`, schema: { type: 'string', enum: [...values] },
});
const since = (what: string): ParamSpec => ({
  name: 'since', in: 'query', description: `Only ${what} after this height, with \`transitions\` and a \`cursor\` to pass as the next since (above the head: 400)`, schema: int(),
});
const final: ParamSpec = { name: 'final', in: 'query', description: 'With since: final heights only (true/false or 1/0)', schema: { type: 'string', enum: ['true', 'false', '1', '0'] } };
const tokenRef: ParamSpec = {
  name: 'id', in: 'path', required: true, description: 'Token: 0x + 40 hex digits (any case) or its symbol (any case)', schema: { type: 'string' },
};
const ADMIN_ERRORS = { 401: ERROR_TITLES[401], 403: ERROR_TITLES[403] };
const DEV_ERRORS = {
  ...ADMIN_ERRORS,
  404: 'The node was not started with --dev (development controls are absent)',
};

/** Every route of ENDPOINTS, and GET / (the index ENDPOINTS is served by), in ENDPOINTS order. */
export const OPERATIONS: OperationSpec[] = [
  { endpoint: 'GET /', ok: { html: true, json: 'IndexView' }, description: 'The block explorer (HTML) for a browser; with `Accept: application/json` the index of every route.' },
  { endpoint: 'GET /status', ok: { view: 'StatusView' } },
  { endpoint: 'GET /blocks/latest', ok: { view: 'BlockView' } },
  {
    endpoint: 'GET /blocks?limit&from', ok: { view: 'BlockList' }, errors: { 400: 'limit or from malformed, or limit 0' },
    params: [limit(), { name: 'from', in: 'query', description: 'Newest height of the page (default: the head; larger values mean the head)', schema: int() }],
  },
  {
    endpoint: 'GET /blocks/:ref', ok: { view: 'BlockView' }, errors: { 404: 'No block at that height or with that hash' },
    params: [{ name: 'ref', in: 'path', required: true, description: 'A height, or a block hash (0x + 64 hex digits)', schema: { type: 'string' } }],
  },
  {
    endpoint: 'GET /chain?from&limit', ok: { view: 'ChainPage' }, errors: { 400: 'from or limit malformed, or limit 0' },
    params: [
      { name: 'from', in: 'query', description: 'First height of the page (default 0)', schema: int(0, undefined, 0) },
      limit(CHAIN_PAGE, 'Blocks asked for'),
    ],
  },
  { endpoint: 'GET /mempool?limit', ok: { view: 'MempoolView' }, errors: { 400: 'limit malformed or 0' }, params: [limit(LONG_PAGE)] },
  { endpoint: 'GET /stats', ok: { view: 'StatsView' } },
  {
    endpoint: 'GET /address/:end', ok: { view: 'AccountView' }, params: [address('end')],
    errors: { 400: 'Not an address', 404: 'The account has never received anything and holds no tokens (treat as balance 0, nonce 0)' },
  },
  {
    endpoint: 'GET /address/:end/txs?limit&before', ok: { view: 'AddressTxsView' }, errors: { 400: 'Not an address, or limit/before malformed' },
    params: [address('end'), limit(), { name: 'before', in: 'query', description: 'Only transactions below this height (the `nextBefore` of the previous page)', schema: int() }],
  },
  { endpoint: 'GET /address/:end/analysis', ok: { view: 'AnalysisView' }, params: [address('end')], errors: { 400: 'Not an address' } },
  {
    endpoint: 'GET /proof/:end?height', ok: { view: 'AccountProofView' }, errors: { 400: 'Not an address, or height malformed', 404: 'No block at that height' },
    params: [address('end'), { name: 'height', in: 'query', description: 'Block whose stateRoot the proof is against (default: the head)', schema: int() }],
  },
  { endpoint: 'GET /txs?limit', ok: { view: 'TxList' }, params: [limit()], errors: { 400: 'limit malformed or 0' } },
  {
    endpoint: 'GET /tx/:id', ok: { view: 'TxRecord' }, params: [id64('Transaction id')],
    errors: { 400: 'Not 0x + 64 hex digits', 404: 'Not known to this node (it may still be propagating)' },
  },
  {
    endpoint: 'GET /search?q=', ok: { view: 'SearchView' },
    params: [{ name: 'q', in: 'query', description: 'Prefix to search (first 200 characters; empty: no results)', schema: { type: 'string' } }],
  },
  { endpoint: 'GET /tokens?limit&before', ok: { view: 'TokenList' }, params: [limit(), heightBefore], errors: { 400: 'limit or before malformed' } },
  { endpoint: 'GET /tokens/:id', ok: { view: 'TokenView' }, params: [tokenRef], errors: { 400: 'Neither a token id nor a symbol', 404: 'No such token' } },
  {
    endpoint: 'GET /tokens/:id/holders?limit&before', ok: { view: 'TokenHolders' }, params: [tokenRef, limit(), cursor],
    errors: { 400: 'Bad token reference, limit or cursor', 404: 'No such token' },
  },
  {
    endpoint: 'GET /tokens/:id/transfers?limit&before', ok: { view: 'TokenTransfers' }, params: [tokenRef, limit(), heightBefore],
    errors: { 400: 'Bad token reference, limit or before', 404: 'No such token' },
  },
  { endpoint: 'GET /nfts?limit&before', ok: { view: 'CollectionList' }, params: [limit(), heightBefore], errors: { 400: 'limit or before malformed' } },
  {
    endpoint: 'GET /nfts/:id?limit&before', ok: { view: 'NftView' }, errors: { 400: 'Bad collection or item reference, limit or cursor', 404: 'No such collection or item' },
    params: [
      { name: 'id', in: 'path', required: true, description: 'A collection (0x + 40 hex digits or its symbol), or one item as <collection>:<item> (items from 1)', schema: { type: 'string' } },
      limit(FEED_PAGE, 'Items per page of a collection'), cursor,
    ],
  },
  { endpoint: 'GET /names?limit&before', ok: { view: 'NameList' }, params: [limit(), heightBefore], errors: { 400: 'limit or before malformed' } },
  {
    endpoint: 'GET /name/:name', ok: { view: 'NameResolutionView' }, errors: { 404: 'Not registered (also for anything that cannot be a name)' },
    params: [{ name: 'name', in: 'path', required: true, description: '3–32 characters of a–z, 0–9 and -, not starting or ending with -', schema: { type: 'string' } }],
  },
  { endpoint: 'GET /validators', ok: { view: 'ValidatorsView' } },
  { endpoint: 'GET /governance', ok: { view: 'GovernanceView' } },
  {
    endpoint: 'GET /governance/proposals?status&since&limit', ok: { view: 'ProposalsPage' }, errors: { 400: 'Unknown status, since above the head, or limit malformed' },
    params: [oneOf('status', PROPOSAL_STATES, 'Only proposals in this state'), since('proposals changed'), limit()],
  },
  {
    endpoint: 'GET /governance/proposals/:id?for', ok: { view: 'ProposalView' },
    params: [id64('Proposal id (the GOV_PROPOSE transaction id)'), forParam('proposal')],
    errors: { 400: 'Not 0x + 64 hex digits, or a bad for address', 404: 'No such proposal' },
  },
  { endpoint: 'GET /treasury', ok: { view: 'TreasuryView' } },
  {
    endpoint: 'GET /ai/tasks?status&mode&oracle&since&final&limit', ok: { view: 'TasksPage' },
    errors: { 400: 'Unknown status or mode, bad oracle address, since above the head, final or limit malformed' },
    params: [
      oneOf('status', TASK_STATES, 'Only tasks in this state'), oneOf('mode', TASK_MODES, 'Only tasks of this mode'),
      { ...address('oracle'), in: 'query', required: false, description: 'Only tasks of this oracle (0x or cairn1… address)' },
      since('task transitions'), final, limit(),
    ],
  },
  {
    endpoint: 'GET /ai/tasks/:id?for', ok: { view: 'TaskView' },
    params: [id64('Task id (the AI_TASK transaction id)'), forParam('task')],
    errors: { 400: 'Not 0x + 64 hex digits, or a bad for address', 404: 'No such task' },
  },
  { endpoint: 'GET /ai/oracles', ok: { view: 'OraclesView' } },
  { endpoint: 'GET /bridge', ok: { view: 'BridgeView' } },
  {
    endpoint: 'GET /bridge/transfers?direction&status&since&final&limit', ok: { view: 'BridgeTransfersPage' },
    errors: { 400: 'Unknown direction or status, since above the head, final or limit malformed' },
    params: [oneOf('direction', ['out', 'in'], 'Only transfers this way'), oneOf('status', TRANSFER_STATES, 'Only transfers in this state'), since('transfer transitions'), final, limit()],
  },
  { endpoint: 'GET /machines', ok: { view: 'MachinesView' } },
  {
    endpoint: 'GET /machines/:name/due?limit', ok: { view: 'MachineDueView' },
    params: [{ name: 'name', in: 'path', required: true, description: 'An on-chain machine: proposal, permissionChange, aiTask or bridgeTransfer (GET /machines)', schema: { type: 'string' } }, limit()],
    errors: { 400: 'limit malformed', 404: 'Not an on-chain machine' },
  },
  {
    endpoint: 'GET /bridge/transfers/:id?for', ok: { view: 'BridgeTransferView' },
    params: [id64('Transfer id (the BRIDGE_OUT or BRIDGE_IN transaction id)'), forParam('transfer')],
    errors: { 400: 'Not 0x + 64 hex digits, or a bad for address', 404: 'No such transfer' },
  },
  {
    endpoint: 'GET /internal?address&from&limit', ok: { view: 'InternalList' }, errors: { 400: 'Bad address, from or limit' },
    params: [
      { ...address('address'), in: 'query', required: false, description: 'Only transfers from or to this account (0x or cairn1… address)' },
      { name: 'from', in: 'query', description: 'First height (default 0)', schema: int(0, undefined, 0) }, limit(),
    ],
  },
  { endpoint: 'GET /logs?limit', ok: { view: 'LogList' }, params: [limit(LONG_PAGE)], errors: { 400: 'limit malformed or 0' } },
  { endpoint: 'GET /contract/:addr', ok: { view: 'ContractMetadataView' }, params: [address('addr')], errors: { 400: 'Not an address', 404: 'No verified contract at that address' } },
  {
    endpoint: 'POST /tx', body: { view: 'TxEnvelope' }, ok: { view: 'SubmitVerdictView' },
    description: 'A refused transaction is not an HTTP error: 200 with accepted false and the reason.',
    errors: { 400: 'Malformed envelope or a rule of its type broken', 413: ERROR_TITLES[413] },
  },
  {
    endpoint: 'POST /vm/tx', body: { view: 'VmTxRequest' }, ok: { view: 'SubmitVerdictView' },
    errors: { 400: 'No raw transaction, or it cannot be decoded', 413: ERROR_TITLES[413] },
  },
  {
    endpoint: 'POST /blocks', body: { view: 'BlockBody' }, ok: { view: 'BlockIntakeView' },
    errors: { 400: 'Malformed or invalid block (nothing changes)', 413: ERROR_TITLES[413] },
  },
  {
    endpoint: 'POST /contract/:addr/verify', params: [address('addr')], body: { view: 'ContractVerifyRequest' }, ok: { view: 'ContractVerifyResult' },
    errors: {
      400: 'Bad address or body, compilation errors, or the compiled code does not match', 404: 'No contract code at that address',
      413: ERROR_TITLES[413], 502: ERROR_TITLES[502],
    },
  },
  { endpoint: 'GET /gateway', ok: { view: 'GatewayView' } },
  {
    endpoint: 'GET /guard?limit', ok: { view: 'GuardView' }, admin: 'optional', params: [limit(LONG_PAGE)], errors: { 400: 'limit malformed or 0' },
    description: 'Blocked client addresses are masked unless the request carries a valid x-admin-token.',
  },
  { endpoint: 'GET /openapi.json', ok: { view: 'OpenApiDocumentView' }, errors: { 500: 'docs/openapi.json could not be read (run npm run docs:openapi)' } },
  { endpoint: 'GET /metrics', ok: { text: PROMETHEUS_CONTENT_TYPE.replace(/; charset=.*$/, ''), description: 'Prometheus text exposition format 0.0.4' } },
  { endpoint: 'GET /health/live', ok: { view: 'LiveView' } },
  {
    endpoint: 'GET /health/ready', ok: { view: 'ReadinessView' },
    otherwise: { status: 503, view: 'ReadinessView', description: 'Not ready (syncing, no peer reachable, no recent block): the readiness view with its reason — or {error} while the node starts' },
  },
  { endpoint: 'GET /peers', ok: { view: 'PeersView' }, admin: 'required', errors: ADMIN_ERRORS },
  {
    endpoint: 'POST /dev/mine', body: { view: 'DevMineRequest', optional: true }, ok: { view: 'DevMined' }, admin: 'required',
    errors: { 400: `Body not a JSON object, or blocks not an integer from 1 to ${DEV_MINE_MAX}`, ...DEV_ERRORS, 409: 'So many blocks now would put the head more than a few slots ahead of the clock: retry later or mine fewer', 413: ERROR_TITLES[413] },
  },
  { endpoint: 'POST /dev/snapshot', ok: { view: 'DevSnapshotView' }, admin: 'required', errors: DEV_ERRORS },
  {
    endpoint: 'POST /dev/revert', body: { view: 'DevRevertRequest' }, ok: { view: 'DevRevertedView' }, admin: 'required',
    errors: {
      400: 'Body not a JSON object, or id not an integer', ...DEV_ERRORS, 404: 'No such snapshot, or the node was not started with --dev',
      409: 'The snapshot is gone: its block was undone and replaced', 413: ERROR_TITLES[413],
    },
  },
  { endpoint: 'GET /dev/snapshots', ok: { view: 'DevSnapshotsView' }, admin: 'required', errors: DEV_ERRORS },
  {
    endpoint: 'GET /security/alerts?limit', ok: { view: 'AlertsView' }, admin: 'required',
    params: [limit(ALERTS_PAGE, 'Alerts')],
    errors: { 400: 'limit malformed or 0', ...ADMIN_ERRORS },
  },
];
