import type { Server } from 'hyper-express';
import { parseVerifyRequest, verifyContract, type ContractMetadata } from '../../contracts/verify';
import { CompilerBusyError, type SolcCompiler } from '../../contracts/compiler';
import { fromHex } from '../../primitives/hex';
import { badRequest, HttpError, notFound } from '../httpError';
import { readJsonBody } from '../json';
import { addressParam } from '../params';
import { CONTRACT_BODY_BYTES, type HttpDeps, type RouteWrap } from '../route';
import type { ContractMetadataView, ContractVerifyResult } from '../../views';

/**
 * The solc worker is the one service above the node that a request waits on: when it fails
 * (crashes, times out, exits) rather than reporting compilation errors, the answer is 502 —
 * the node is fine, the compiler service is not; retry with backoff. A full compile queue is
 * a 503 with Retry-After.
 */
function upstream(compiler: SolcCompiler): SolcCompiler {
  return {
    compile: (input: unknown) =>
      compiler.compile(input).catch((e: unknown) => {
        if (e instanceof CompilerBusyError) throw new HttpError(503, e.message);
        throw new HttpError(502, `compiler service failed: ${(e as Error).message}`);
      }),
  } as SolcCompiler;
}

export function registerContractRoutes(app: Server, r: RouteWrap, d: HttpDeps): void {
  app.get('/contract/:addr', r(async (req): Promise<ContractMetadataView> => {
    const addr = addressParam(req.path_parameters.addr);
    const meta = await d.reader.contractMetadata(addr);
    if (!meta) throw notFound(`no verified contract at ${addr}`);
    return meta;
  }));

  app.post('/contract/:addr/verify', r(async (req): Promise<ContractVerifyResult> => {
    const addr = addressParam(req.path_parameters.addr);
    const parsed = parseVerifyRequest(await readJsonBody(req, CONTRACT_BODY_BYTES));
    if (typeof parsed === 'string') throw badRequest(parsed);
    const code = await d.reader.code(addr);
    if (code === '0x') throw notFound(`no contract code at ${addr}`);
    const out = await verifyContract(upstream(d.compiler), parsed, Buffer.from(fromHex(code)));
    if (!out.ok) throw badRequest(out.error);
    const metadata: ContractMetadata = { address: addr, ...out.metadata, verifiedAtHeight: d.reader.head.height };
    await d.saveContract(addr, metadata);
    return { verified: true, address: addr, name: metadata.name, compiler: metadata.compiler };
  }));
}
