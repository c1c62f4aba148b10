import { HeadMemo, memoJson } from '../../api/headMemo';
import type { Hex } from '../../primitives/hex';
import { MAX_SNAPSHOT_NODES } from '../../protocol/params';
import { markOffence } from '../../web/guard';
import { readJsonBody } from '../../web/body';
import { badRequest } from '../../web/httpError';
import { MAX_BODY_BYTES, type HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

const HASH = /^0x[0-9a-f]{64}$/;

/** GET /snapshots, POST /snapshots/nodes: what a node joining by state sync asks for. */
export function syncHandlers(d: HttpDeps): RouteHandlers<'snapshots' | 'stateNodes'> {
  // The list reads (and decodes) its snapshot blocks: built once per head and finalized height, whoever polls it.
  const memo = new HeadMemo(() => d.reader.head, 1);
  return {
    snapshots: () => memoJson(memo, 'snapshots', () => d.reader.snapshots.snapshots()),
    stateNodes: async (_in, req) => {
      const body = (await readJsonBody(req, MAX_BODY_BYTES)) as { hashes?: unknown } | null;
      const hashes = body?.hashes;
      if (
        !Array.isArray(hashes) ||
        hashes.length === 0 ||
        hashes.length > MAX_SNAPSHOT_NODES ||
        !hashes.every((h) => typeof h === 'string' && HASH.test(h))
      ) {
        markOffence(req, 'malformed_body');
        throw badRequest(
          `body must be {"hashes": [...]}: 1 to ${MAX_SNAPSHOT_NODES} node hashes, each 0x + 64 lower-case hex digits`,
        );
      }
      return { nodes: await d.reader.snapshots.stateNodes(hashes as Hex[]) };
    },
  };
}
