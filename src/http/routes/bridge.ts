import type { Server } from 'hyper-express';
import { TRANSFER_STATES } from '../../api/ports';
import type { BridgeTransfersPage, BridgeTransferView, BridgeView, Direction, TransferStatus } from '../../views';
import { badRequest, notFound } from '../httpError';
import { addressParam, feedParams, oneOfParam, pageSize, sized } from '../params';
import type { HttpDeps, RouteWrap } from '../route';

const DIRECTIONS: readonly Direction[] = ['out', 'in'];

/** GET /bridge, /bridge/transfers, /bridge/transfers/:id. */
export function registerBridgeRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.get('/bridge', r(async (): Promise<BridgeView> => d.reader.bridge.bridge()));

  app.get('/bridge/transfers', r(async (req): Promise<BridgeTransfersPage> => {
    const q = req.query_parameters;
    const direction = oneOfParam<Direction>(q, 'direction', DIRECTIONS, false);
    const status = oneOfParam<TransferStatus>(q, 'status', TRANSFER_STATES, true);
    const size = pageSize(q);
    return sized(size, await d.reader.bridge.transfers({ direction, status, ...feedParams(q, d.reader.head.height), limit: size.limit }));
  }));

  app.get('/bridge/transfers/:id', r(async (req): Promise<BridgeTransferView> => {
    const id = req.path_parameters.id.toLowerCase();
    if (!/^0x[0-9a-f]{64}$/.test(id)) throw badRequest('invalid transfer id: expected 0x followed by 64 hex digits (the BRIDGE_OUT or BRIDGE_IN transaction id)');
    const forAddress = req.query_parameters.for ? addressParam(req.query_parameters.for) : undefined;
    const t = await d.reader.bridge.transfer(id, forAddress);
    if (!t) throw notFound(`transfer not found: ${id}`);
    return t;
  }));
}
