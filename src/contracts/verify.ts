import type { ContractMetadata } from '../protocol/contracts';
import { SOLC_VERSION, type SolcCompiler } from './compiler';

/** A verification request: Solidity sources and the settings they were compiled with. */
export interface VerifyRequest {
  sources: Record<string, string>; // file name → content (or `source` for one file named Contract.sol)
  contractName: string; // "Token" or "Token.sol:Token"
  compilerVersion?: string; // must be SOLC_VERSION when given (with or without "v"/"+commit")
  optimizer?: { enabled: boolean; runs?: number };
  evmVersion?: string;
}

export type { ContractMetadata };

export type VerifyOutcome =
  | { ok: true; metadata: Omit<ContractMetadata, 'address' | 'verifiedAtHeight'> }
  | { ok: false; error: string };

/** Parses and bounds the request body; returns an error message for a 400. */
export function parseVerifyRequest(body: unknown): VerifyRequest | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body must be a JSON object';
  const b = body as Record<string, unknown>;
  let sources: Record<string, string>;
  if (typeof b.source === 'string') sources = { 'Contract.sol': b.source };
  else if (typeof b.sources === 'object' && b.sources !== null && !Array.isArray(b.sources)) {
    sources = {};
    for (const [k, v] of Object.entries(b.sources)) {
      if (typeof v !== 'string') return `sources.${k} must be a string`;
      sources[k] = v;
    }
  } else return 'give `source` (one file) or `sources` {file: content}';
  const total = Object.values(sources).reduce((n, s) => n + s.length, 0);
  if (total === 0 || total > 1_000_000) return 'sources must total 1 to 1,000,000 characters';
  if (typeof b.contractName !== 'string' || !/^[A-Za-z0-9_./:-]{1,200}$/.test(b.contractName))
    return 'contractName is required (e.g. "Token")';
  if (b.compilerVersion !== undefined && typeof b.compilerVersion !== 'string')
    return 'compilerVersion must be a string';
  const opt = b.optimizer as { enabled?: unknown; runs?: unknown } | undefined;
  if (
    opt !== undefined &&
    (typeof opt !== 'object' ||
      opt === null ||
      typeof opt.enabled !== 'boolean' ||
      (opt.runs !== undefined && !Number.isSafeInteger(opt.runs)))
  ) {
    return 'optimizer must be {enabled: boolean, runs?: integer}';
  }
  if (b.evmVersion !== undefined && (typeof b.evmVersion !== 'string' || !/^[a-z]{3,20}$/.test(b.evmVersion)))
    return 'evmVersion must be a name like "cancun"';
  return {
    sources,
    contractName: b.contractName,
    compilerVersion: b.compilerVersion as string | undefined,
    optimizer: opt as VerifyRequest['optimizer'],
    evmVersion: b.evmVersion as string | undefined,
  };
}

/** Drops the CBOR metadata trailer (its length is the last two bytes) from runtime code. */
export function stripMetadata(code: Buffer): Buffer {
  if (code.length < 2) return code;
  const len = code.readUInt16BE(code.length - 2);
  return len + 2 <= code.length ? code.subarray(0, code.length - len - 2) : code;
}

/** Zeroes immutable slots, whose deployed values differ from the compiler's placeholders. */
function zeroImmutables(code: Buffer, refs: Record<string, { start: number; length: number }[]> | undefined): Buffer {
  const out = Buffer.from(code);
  for (const list of Object.values(refs ?? {}))
    for (const { start, length } of list) out.fill(0, start, Math.min(start + length, out.length));
  return out;
}

/**
 * Compiles the sources and accepts only if the runtime bytecode matches the on-chain code,
 * ignoring the metadata hash (and immutable values).
 */
export async function verifyContract(
  compiler: SolcCompiler,
  req: VerifyRequest,
  onChainCode: Buffer,
): Promise<VerifyOutcome> {
  if (req.compilerVersion && !req.compilerVersion.replace(/^v/, '').startsWith(SOLC_VERSION)) {
    return {
      ok: false,
      error: `compiler ${req.compilerVersion} is not available: this node bundles solc ${SOLC_VERSION}`,
    };
  }
  const optimizer = { enabled: req.optimizer?.enabled ?? false, runs: req.optimizer?.runs ?? 200 };
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(req.sources).map(([k, content]) => [k, { content }])),
    settings: {
      optimizer,
      ...(req.evmVersion ? { evmVersion: req.evmVersion } : {}),
      outputSelection: {
        '*': { '*': ['abi', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'] },
      },
    },
  };
  const { output, version } = await compiler.compile(input);
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length)
    return {
      ok: false,
      error: `compilation failed: ${errors
        .map((e: { formattedMessage?: string; message: string }) => e.formattedMessage ?? e.message)
        .join('\n')
        .slice(0, 2000)}`,
    };
  const [fileHint, nameHint] = req.contractName.includes(':')
    ? req.contractName.split(':')
    : [undefined, req.contractName];
  const candidates: [string, string, any][] = [];
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [name, c] of Object.entries(contracts as Record<string, unknown>)) {
      if (name === nameHint && (!fileHint || file === fileHint)) candidates.push([file, name, c]);
    }
  }
  if (candidates.length === 0) return { ok: false, error: `contract ${req.contractName} not found in the sources` };
  if (candidates.length > 1)
    return { ok: false, error: `contract name ${nameHint} is ambiguous: use "File.sol:${nameHint}"` };
  const [file, name, c] = candidates[0];
  const compiled = Buffer.from(c.evm.deployedBytecode.object, 'hex');
  const refs = c.evm.deployedBytecode.immutableReferences;
  const a = stripMetadata(zeroImmutables(compiled, refs));
  const b = stripMetadata(zeroImmutables(onChainCode, refs));
  if (!a.equals(b))
    return {
      ok: false,
      error:
        'runtime bytecode does not match the on-chain code (metadata hash ignored): check sources, contract ' +
        'name, optimizer and evmVersion',
    };
  return {
    ok: true,
    metadata: {
      name,
      file,
      abi: c.abi,
      compiler: version,
      settings: { optimizer, evmVersion: req.evmVersion ?? null },
      sources: req.sources,
    },
  };
}
