import type { Server } from 'hyper-express';
import { parseVerifyRequest, verifyContract, type ContractMetadata } from '../../contracts/verify';
import { fromHex } from '../../primitives/hex';
import { badRequest, notFound } from '../httpError';
import { parseJsonBody, readBody } from '../json';
import { addressParam } from '../params';
import { CONTRACT_BODY_BYTES, type HttpDeps, type RouteWrap } from '../server';

export function registerContractRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.get('/contract/:addr', r(async (req) => {
    const addr = addressParam(req.path_parameters.addr);
    const meta = await d.reader.contractMetadata(addr);
    if (!meta) throw notFound(`no verified contract at ${addr}`);
    return meta;
  }));

  app.post('/contract/:addr/verify', r(async (req) => {
    const addr = addressParam(req.path_parameters.addr);
    const parsed = parseVerifyRequest(parseJsonBody(await readBody(req, CONTRACT_BODY_BYTES)));
    if (typeof parsed === 'string') throw badRequest(parsed);
    const code = await d.reader.code(addr);
    if (code === '0x') throw notFound(`no contract code at ${addr}`);
    const out = await verifyContract(d.compiler, parsed, Buffer.from(fromHex(code)));
    if (!out.ok) throw badRequest(out.error);
    const metadata: ContractMetadata = { address: addr, ...out.metadata, verifiedAtHeight: d.reader.head.height };
    await d.saveContract(addr, metadata);
    return { verified: true, address: addr, name: metadata.name, compiler: metadata.compiler };
  }));
}
