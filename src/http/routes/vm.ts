import { parseVerifyRequest, verifyContract, type ContractMetadata } from '../../contracts/verify';
import { CompilerBusyError, type SolcCompiler } from '../../contracts/compiler';
import { fromHex } from '../../primitives/hex';
import { badRequest, HttpError, notFound } from '../../web/httpError';
import { readJsonBody } from '../../web/body';
import { sized } from '../params';
import { CONTRACT_BODY_BYTES, type HttpDeps } from '../route';
import type { RouteHandlers } from './bind';

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

/** GET /internal, /logs, /contract/:addr; POST /contract/:addr/verify. */
export const vmHandlers = (d: HttpDeps): RouteHandlers<'internal' | 'logs' | 'contract' | 'verifyContract'> => ({
  // Node-local index of value moved by VM execution. `from` is a starting height.
  internal: async ({ query: q }) =>
    sized(q.limit, { internal: await d.reader.internal(q.address, q.from, q.limit.limit) }),
  // Recent VM events, newest first (node-local).
  logs: async ({ query: q }) => sized(q.limit, { logs: await d.reader.recentLogs(q.limit.limit) }),
  contract: async ({ params: { addr } }) => {
    const meta = await d.reader.contractMetadata(addr);
    if (!meta) throw notFound(`no verified contract at ${addr}`);
    return meta;
  },
  verifyContract: async ({ params: { addr } }, req) => {
    const parsed = parseVerifyRequest(await readJsonBody(req, CONTRACT_BODY_BYTES));
    if (typeof parsed === 'string') throw badRequest(parsed);
    const code = await d.reader.code(addr);
    if (code === '0x') throw notFound(`no contract code at ${addr}`);
    const out = await verifyContract(upstream(d.compiler), parsed, Buffer.from(fromHex(code)));
    if (!out.ok) throw badRequest(out.error);
    const metadata: ContractMetadata = { address: addr, ...out.metadata, verifiedAtHeight: d.reader.head.height };
    await d.saveContract(addr, metadata);
    return { verified: true, address: addr, name: metadata.name, compiler: metadata.compiler };
  },
});
