import type { DevControls } from '../api/ports';
import { JsonText } from '../api/headMemo';
import type { MaybePromise } from '../primitives/maybe';
import type { Request, Response } from 'hyper-express';
import type { Logger } from 'pino';
import type { Admission, AlertSource, BlockIntake, ChainQueries, PeerInfo } from '../api/ports';
import type { SolcCompiler } from '../contracts/compiler';
import type { ContractMetadata } from '../contracts/verify';
import { chargeAnswer, requestLog, UNAVAILABLE_RETRY_AFTER_S, type Gate } from '../web/request';
import type { GuardOptions } from '../web/guard';
import { HttpError } from '../web/httpError';
import { ParamError } from '../views/routes/define';
import type { MetricsSource } from './metrics';
import { jsonAnswerUnits, type RateLimitOptions } from '../web/rateLimit';

/** What the HTTP server and its routes are given (routes/ import it from here, not from server.ts). */
export interface HttpDeps {
  reader: ChainQueries;
  compiler: SolcCompiler;
  saveContract(addr: string, m: ContractMetadata): Promise<void>;
  admission: Admission;
  /** Blocks this node is behind its peers while far behind (syncing), else null: reads answer 503 meanwhile. */
  syncing?: () => number | null;
  /** GET /health/ready: synced and producing or following. Default: ready. */
  readiness?: () => { ready: boolean; reason?: string; [k: string]: unknown };
  /** POST /blocks (gossip from peers); none: the route answers 503. */
  blocks?: BlockIntake;
  log: Logger;
  now: () => number;
  /** False while the node is starting: every route answers 503 with Retry-After. Default: always ready. */
  ready?: () => boolean;
  /** `x-admin-token` of GET /peers and GET /security/alerts; null/undefined disables them (403). */
  adminToken?: string | null;
  /** --dev: the development controls (POST /dev/*); none: those routes answer 404. */
  dev?: DevControls;
  /** Origins whose pages may read the API (CORS; web/cors.ts). Default ["*"]; empty: no CORS headers. */
  corsOrigins?: readonly string[];
  /** The security sentinel (GET /security/alerts); none: an empty list. */
  alerts?: AlertSource;
  /** Peers for /peers, /gateway and cairn_peers; none: a single node, []. */
  peers?: () => PeerInfo[];
  /** This node on the peer-to-peer network (GET /p2p); undefined until its host runs. */
  p2p?: () => { peerId: string; addresses(): string[] } | undefined;
  /** Per-client request limit; defaults: defaultRateLimitOptions (240 per 10 000 ms, nobody exempt). */
  rateLimit?: Partial<RateLimitOptions>;
  /** Auto-mitigation; defaults: defaultGuardOptions (enabled). */
  guard?: Partial<GuardOptions>;
  /** Chain gauges and node histograms for /metrics (height and finalized height default to the reader's head). */
  metrics?: MetricsSource;
  /** The on-chain machines' view actors (GET /machines/:name/due); none: that route answers 404. */
  machineViews?: {
    due(
      machine: string,
      limit: number,
    ): Promise<{ height: number; due: { id: string; status: string; at: number }[] } | undefined>;
  };
}

/** Largest accepted request body: a full envelope with a 64 KiB data field fits with room to spare. */
export const MAX_BODY_BYTES = 512 * 1024;
/** A gossiped block: up to 500 hybrid transactions with their signatures and results. */
export const BLOCK_BODY_BYTES = 16 * 1024 * 1024;
/** Contract verification carries Solidity sources (up to 1,000,000 characters). */
export const CONTRACT_BODY_BYTES = 2 * 1024 * 1024;
export const bodyLimitFor = (path: string): number =>
  path.startsWith('/contract/') ? CONTRACT_BODY_BYTES : path === '/blocks' ? BLOCK_BODY_BYTES : MAX_BODY_BYTES;
export const BACKSTOP_BODY_BYTES = 16 * 1024 * 1024;

/** What hyper-express calls: synchronous when the answer is at hand (a memoized read), else a promise. */
export type Handler = (req: Request, res: Response) => void | Promise<void>;

/**
 * Wraps a handler so that every failure leaves as `{error}` with its status, behind the gate
 * when one is given. A handler whose answer is at hand returns it (no promise), and the
 * request is answered without a microtask.
 */
export function route<V>(
  log: Logger,
  h: (req: Request, res: Response) => MaybePromise<unknown>,
  gate?: Gate<V>,
): Handler {
  const answer = (req: Request, res: Response, body: unknown): void => {
    if (res.completed || body === undefined) return;
    try {
      // A long answer weighs its length against the client's rate limit (web/rateLimit.ts COST).
      const text = body instanceof JsonText ? body.text : JSON.stringify(body);
      chargeAnswer(req, jsonAnswerUnits(text.length));
      res.header('content-type', 'application/json', true).send(body instanceof JsonText ? (body.bytes ?? text) : text);
    } catch (e) {
      fail(req, res, e);
    }
  };
  const fail = (req: Request, res: Response, e: unknown): void => {
    if (res.completed) return;
    if (e instanceof HttpError) {
      if (e.status === 503) res.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
      return void res
        .status(e.status)
        .json(e.refusalCode === undefined ? { error: e.message } : { error: e.message, code: e.refusalCode });
    }
    if (e instanceof ParamError) return void res.status(400).json({ error: e.message });
    requestLog(log, req).error({ err: e }, 'request failed');
    res.status(500).json({ error: 'internal error' });
  };
  return (req, res) => {
    let visit: V | undefined;
    if (gate) {
      visit = gate.enter(req, res);
      if (visit === undefined) return;
    }
    const done = gate ? () => gate.leave(req, res, visit as V) : undefined;
    let out: MaybePromise<unknown>;
    try {
      out = h(req, res);
    } catch (e) {
      fail(req, res, e);
      return done?.();
    }
    if (out instanceof Promise) {
      return out
        .then(
          (body) => answer(req, res, body),
          (e) => fail(req, res, e),
        )
        .then(done);
    }
    answer(req, res, out);
    done?.();
  };
}

export type RouteWrap = (h: Parameters<typeof route>[1]) => Handler;
