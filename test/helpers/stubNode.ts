import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { DEV_NETWORK } from '../../src/chain/devnet';

/** How the stand-in answers one request. */
export type StubHandler = (
  req: IncomingMessage,
  body: string,
) => { status: number; body?: unknown; headers?: Record<string, string> };

export interface StubNode {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** Answers every request; reset before each test to a 500 "unexpected". */
  handler: StubHandler;
  /** "METHOD /path?query" of every request since the test began. */
  seen: string[];
}

/**
 * A tiny real HTTP server standing in for a node, for client-side tests (CLI, SDK) that
 * check what is sent and how answers are handled. Registers its own vitest hooks: call it
 * inside a describe block.
 */
export function useStubNode(): StubNode {
  const stub: StubNode = { url: '', handler: unexpected, seen: [] };
  let server: Server;
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const r = stub.handler(req, body);
        // What a signing client asks first (the chain it signs for): unless the test answers GET /status
        // itself (a 404 is "not answered"), the development network, not recorded in `seen`.
        if (req.method === 'GET' && req.url === '/status' && (r === unexpectedAnswer || r.status === 404)) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ chainId: DEV_NETWORK.chainId, genesisHash: DEV_NETWORK.genesisHash }));
          return;
        }
        stub.seen.push(`${req.method} ${req.url}`);
        res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
        res.end(r.body === undefined ? '' : JSON.stringify(r.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    stub.seen = [];
    stub.handler = unexpected;
  });
  return stub;
}

const unexpectedAnswer = { status: 500, body: { error: 'unexpected' } };
const unexpected: StubHandler = () => unexpectedAnswer;
