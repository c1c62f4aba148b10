import type { Server } from 'hyper-express';
import type { Logger } from 'pino';
import { explorerAssets } from '../explorer';
import type { RouteWrap } from '../route';
import type { ChainQueries } from '../../api/ports';

export const ENDPOINTS: [string, string][] = [
  ['GET /status', 'Chain state: height, finalizedHeight, head hash, supply, treasury, validators, block reward'],
  ['GET /blocks/latest', 'Chain head'],
  ['GET /blocks?limit&from', 'Blocks, newest first from height `from`'],
  ['GET /blocks/:ref', 'Block by height or hash, with size'],
  ['GET /chain?from&limit', 'Contiguous full blocks with height, hash and size on top (at most 2000 per page: MAX_CHAIN_PAGE; a larger limit is capped)'],
  ['GET /mempool?limit', 'Pending transactions, oldest first (limit: default 100; a larger limit than 1000 is capped), with the pool\'s size'],
  ['GET /stats', 'Accounts, stake, 24h volume, TPS, hourly series'],
  ['GET /address/:end', 'Account by 0x or cairn1 address, with its FT20 holdings; 404 if never funded and holding no tokens'],
  ['GET /address/:end/txs?limit&before', 'Wallet transactions, newest first'],
  ['GET /address/:end/analysis', 'Account aggregates'],
  ['GET /proof/:end?height', 'Merkle proof of the account against a block stateRoot'],
  ['GET /txs?limit', 'Global transaction feed'],
  ['GET /tx/:id', 'Transaction, in mempool or in a block'],
  ['GET /search?q=', 'Prefix search over addresses, blocks, transactions, tokens (symbol or name) and names'],
  ['GET /tokens?limit&before', 'FT20 tokens, newest first (node-local index; before = a block height, e.g. the nextBefore of the previous page)'],
  ['GET /tokens/:id', 'Token by id or symbol, with holder count'],
  ['GET /tokens/:id/holders?limit&before', 'Token holders, largest balance first'],
  ['GET /tokens/:id/transfers?limit&before', 'Token transfers, mints and burns, newest first'],
  ['GET /nfts?limit&before', 'NFT721 collections, newest first'],
  ['GET /nfts/:id?limit&before', 'Collection (id or symbol) with its items newest first, or one item as <collection>:<item>'],
  ['GET /names?limit&before', 'Registered names, newest first'],
  ['GET /name/:name', 'Name resolution: target address and owner'],
  ['GET /validators', 'Active set, standby bank, bankSize, maxValidators, slotProducer, epoch, per-validator performance'],
  ['GET /governance', 'Every governable parameter (value, bounds, changedAt) and proposal counts'],
  ['GET /governance/proposals?status&since&limit', 'Proposals with live tally and history; since = changed after a height, with cursor and finalizedHeight'],
  ['GET /governance/proposals/:id?for', 'One proposal: status, tally, tally history, transitions with heights; for=<address>: the actions that address may send now, with their windows'],
  ['GET /treasury', 'Treasury balance, income, spends and policy'],
  ['GET /ai/tasks?status&mode&oracle&since&final&limit', 'AI tasks with state, deadlines as heights, commits, reveals, result, history; since = the transitions after a height (whole blocks, cursor, finalizedHeight; final=true: final heights only)'],
  ['GET /ai/tasks/:id?for', 'One AI task: state, deadlines and the next one, commits, reveals, bids, verdicts, result, transitions with heights; for=<address>: the actions that address may send now, with their windows'],
  ['GET /ai/oracles', 'Registered oracles: stake, completed, failed, missed, late, slashes, reputation, open duties'],
  ['GET /bridge', 'The bridge: committee (epoch, members, threshold), pools per asset (locked, reserved, available) and the circuit breaker of the current window'],
  ['GET /bridge/transfers?direction&status&since&final&limit', 'Bridge transfers with state and history; since = the transitions after a height (whole blocks, cursor, finalizedHeight)'],
  ['GET /machines', 'Every state machine of the node as data: states, events, legal moves (from, event, to), initial and final states, invariants'],
  ['GET /machines/:name/due?limit', "An on-chain machine's open instances that move by themselves next: id, status and the height of the next deadline, soonest first"],
  ['GET /bridge/transfers/:id?for', 'One bridge transfer: state, releaseAt and the releaseInBlocks countdown while DELAYED, reason, transitions with heights; for=<address>: the actions that address may send now, with their windows'],
  ['GET /internal?address&from&limit', 'Internal transfers moved by VM execution (node-local index)'],
  ['GET /logs?limit', 'Recent VM events, newest first'],
  ['GET /contract/:addr', 'Verification metadata of a VM contract'],
  ['POST /tx', 'Submit a hybrid-signed transaction envelope'],
  ['POST /vm/tx', 'Submit a signed Ethereum transaction {raw}'],
  ['POST /blocks', 'A block gossiped by a peer: {status: imported | known | stale | orphan, height} or 400 {error}'],
  ['POST /contract/:addr/verify', 'Verify a contract: Solidity source and settings'],
  ['GET /gateway', 'Gateway observability: requests and errors per route, latency percentiles, in-flight, uptime, peers'],
  ['GET /guard?limit', 'Auto-mitigation state: thresholds and active blocks'],
  ['GET /openapi.json', 'OpenAPI 3.1 description of this API (request parameters, every response shape and error)'],
  ['GET /metrics', 'Prometheus metrics (text format 0.0.4)'],
  ['GET /health/live', 'Liveness: the process answers'],
  ['GET /health/ready', 'Readiness: synced, and producing or following (503 when not)'],
  ['GET /peers', 'Connected peers (admin: x-admin-token)'],
  ['POST /dev/mine', '--dev only (admin): produce {blocks} blocks now'],
  ['POST /dev/snapshot', '--dev only (admin): snapshot the chain (reusable)'],
  ['POST /dev/revert', '--dev only (admin): revert to snapshot {id}; the snapshot stays usable'],
  ['GET /dev/snapshots', '--dev only (admin): the snapshots taken'],
  ['GET /security/alerts?limit', 'Security sentinel alerts, newest first (admin: x-admin-token)'],
];

/**
 * GET / is the block explorer for a browser and the JSON index of ENDPOINTS for a program
 * (Accept: application/json); the explorer's script and style are under /explorer/.
 */
export function registerIndexRoute(app: Server, r: RouteWrap, log: Logger, reader: () => Pick<ChainQueries, 'status'>): void {
  const assets = explorerAssets(log);
  app.get('/', r(async (req, res) => {
    if ((req.headers.accept ?? '').includes('application/json')) {
      return { name: 'cairn', chainId: (await reader().status()).chainId, explorer: '/', openapi: '/openapi.json', endpoints: ENDPOINTS.map(([path, description]) => ({ path, description })) };
    }
    res.type('html').send((await assets()).html);
    return undefined;
  }));
  app.get('/explorer/app.js', r(async (_req, res) => {
    res.type('application/javascript').header('cache-control', 'no-cache').send((await assets()).js);
    return undefined;
  }));
  app.get('/explorer/app.css', r(async (_req, res) => {
    res.type('text/css').header('cache-control', 'no-cache').send((await assets()).css);
    return undefined;
  }));
}
