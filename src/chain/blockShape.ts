import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { MAX_TXS_PER_BLOCK } from '../protocol/params';
import type { Block } from '../protocol/types';

/**
 * The shape of a block received from a peer (`POST /blocks`, `GET /chain` pages), checked
 * before anything else reads it. Transactions are checked one by one afterwards, with the
 * envelope decoders and the registry's rules, like a `POST /tx`.
 */
const HEX32 = Type.String({ pattern: '^0x[0-9a-f]{64}$' });
const HEX = Type.String({ pattern: '^0x([0-9a-f]{2})*$', maxLength: 10_000 });
const HEADER = Type.Object(
  {
    height: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    parentHash: HEX32,
    timestamp: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    producer: Type.String({ pattern: '^0x[0-9a-f]{40}$' }),
    txRoot: HEX32,
    stateRoot: HEX32,
    txCount: Type.Integer({ minimum: 0, maximum: MAX_TXS_PER_BLOCK }),
    hash: HEX32,
    signatures: Type.Object({ secp256k1: HEX, mldsa44: HEX }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
const BLOCK = Type.Object(
  {
    header: HEADER,
    txs: Type.Array(Type.Object({}), { maxItems: MAX_TXS_PER_BLOCK }),
    results: Type.Array(Type.Object({}), { maxItems: MAX_TXS_PER_BLOCK }),
    events: Type.Optional(Type.Array(Type.Object({}))),
  },
  { additionalProperties: false },
);
const check = TypeCompiler.Compile(BLOCK);

export type BlockParse = { ok: true; block: Block } | { ok: false; error: string };

export function parseBlock(v: unknown): BlockParse {
  if (check.Check(v)) return { ok: true, block: v as unknown as Block };
  const e = check.Errors(v).First();
  return { ok: false, error: `malformed block: ${e ? `${e.path || '/'} ${e.message}` : 'not a block'}` };
}
