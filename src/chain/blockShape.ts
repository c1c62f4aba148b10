import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { SIGNED_HEADER_SCHEMA } from '../crypto/blockHeader';
import { MAX_TXS_PER_BLOCK } from '../protocol/params';
import type { Block } from '../protocol/types';

/**
 * The shape of a block received from a peer (`POST /blocks`, `GET /chain` pages), checked
 * before anything else reads it. Transactions are checked one by one afterwards, with the
 * envelope decoders and the registry's rules, like a `POST /tx`.
 */
const BLOCK = Type.Object(
  {
    header: SIGNED_HEADER_SCHEMA,
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
