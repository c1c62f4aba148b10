import type {
  AlertsView,
  GatewayView,
  GuardView,
  IndexView,
  LiveView,
  OpenApiDocumentView,
  P2pView,
  PeersView,
  ReadinessView,
} from '..';
import { ADMIN_ERRORS, ALERTS_PAGE, LONG_PAGE } from './common';
import { defineRoute, limit, text, view } from './define';

/** The Prometheus text exposition format, as /metrics answers it. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The node as a service: its index, its description, health, metrics, protection and admin views. */
export const OPS_ROUTES = {
  index: defineRoute({
    method: 'GET',
    path: '/',
    ok: { html: true, json: 'IndexView' } as { html: true; json: string; __type?: IndexView },
    summary: 'The block explorer (HTML), or the JSON index of every route',
    description: 'The block explorer (HTML) for a browser; with `Accept: application/json` the index of every route.',
  }),
  gateway: defineRoute({
    method: 'GET',
    path: '/gateway',
    ok: view<GatewayView>('GatewayView'),
    summary: 'Gateway observability: requests and errors per route, latency percentiles, in-flight, uptime, peers',
  }),
  guard: defineRoute({
    method: 'GET',
    path: '/guard',
    ok: view<GuardView>('GuardView'),
    summary: 'Auto-mitigation state: thresholds and active blocks',
    admin: 'optional',
    description: 'Blocked client addresses are masked unless the request carries a valid x-admin-token.',
    query: { limit: limit(LONG_PAGE) },
    errors: { 400: 'limit malformed or 0' },
  }),
  openapi: defineRoute({
    method: 'GET',
    path: '/openapi.json',
    ok: view<OpenApiDocumentView>('OpenApiDocumentView'),
    summary: 'OpenAPI 3.1 description of this API (request parameters, every response shape and error)',
    errors: { 500: 'docs/openapi.json could not be read (run npm run docs:openapi)' },
  }),
  metrics: defineRoute({
    method: 'GET',
    path: '/metrics',
    ok: text(PROMETHEUS_CONTENT_TYPE.replace(/; charset=.*$/, ''), 'Prometheus text exposition format 0.0.4'),
    summary: 'Prometheus metrics (text format 0.0.4)',
  }),
  live: defineRoute({
    method: 'GET',
    path: '/health/live',
    ok: view<LiveView>('LiveView'),
    summary: 'Liveness: the process answers',
  }),
  ready: defineRoute({
    method: 'GET',
    path: '/health/ready',
    ok: view<ReadinessView>('ReadinessView'),
    summary: 'Readiness: synced, and producing or following (503 when not)',
    otherwise: {
      status: 503,
      view: 'ReadinessView',
      description:
        'Not ready (syncing, no peer reachable, no recent block): the readiness view with its reason — or ' +
        '{error} while the node starts',
    },
  }),
  peers: defineRoute({
    method: 'GET',
    path: '/peers',
    ok: view<PeersView>('PeersView'),
    summary: 'Connected peers (admin: x-admin-token)',
    admin: 'required',
    errors: ADMIN_ERRORS,
  }),
  p2p: defineRoute({
    method: 'GET',
    path: '/p2p',
    ok: view<P2pView>('P2pView'),
    summary: "This node's peer id and libp2p listen addresses (what a peer given its HTTP URL dials)",
    errors: { 503: 'the node is starting' },
  }),
  alerts: defineRoute({
    method: 'GET',
    path: '/security/alerts',
    ok: view<AlertsView>('AlertsView'),
    summary: 'Security sentinel alerts, newest first (admin: x-admin-token)',
    admin: 'required',
    query: { limit: limit(ALERTS_PAGE, 'Alerts') },
    errors: { 400: 'limit malformed or 0', ...ADMIN_ERRORS },
  }),
};
