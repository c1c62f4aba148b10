import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../../src/errors/CairnError';
import { TX_TYPES } from '../../../src/modules/registry';
import type { Address, SignedTx, TxType } from '../../../src/protocol/types';
import { buildAssetTx, type AssetTxInput } from '../../../src/sdk/assets';
import { envelope, validate } from '../../helpers/assetHarness';

/**
 * The golden vectors of test/vectors/tx-fields.json: for every implemented type, accepted and
 * refused inputs with the exact reason the node gives (checked against the pre-registry code
 * when they were written: the only difference is NFT_CREATE's lone surrogate, now refused),
 * and the SDK builder's output or refusal for the asset types.
 */

interface NodeCase {
  label: string;
  type: TxType;
  from: Address;
  to: Address | null;
  amount: string;
  data: unknown;
  envelope?: 'eth';
  refusal: string | null;
}
interface SdkCase {
  label: string;
  input: AssetTxInput;
  built?: unknown;
  refusal?: { field: string; message: string };
}
/** tx-fields.json and one tx-fields.<module>.json per later module, read as one set. */
const VECTOR_FILES = readdirSync(new URL('../../vectors/', import.meta.url)).filter((f) =>
  /^tx-fields(\.[a-z-]+)?\.json$/.test(f),
);
const vectors = VECTOR_FILES.map(
  (f) =>
    JSON.parse(readFileSync(new URL(`../../vectors/${f}`, import.meta.url), 'utf8')) as {
      node: NodeCase[];
      sdk?: SdkCase[];
    },
).reduce<{ node: NodeCase[]; sdk: SdkCase[] }>(
  (all, v) => ({ node: [...all.node, ...v.node], sdk: [...all.sdk, ...(v.sdk ?? [])] }),
  { node: [], sdk: [] },
);

describe('golden vectors of the stateless rules (test/vectors/tx-fields.json)', () => {
  it('cover every implemented type, each with an accepted and a refused input', () => {
    for (const type of TX_TYPES) {
      const cases = vectors.node.filter((c) => c.type === type);
      expect(
        cases.some((c) => c.refusal === null),
        `${type} accepted`,
      ).toBe(true);
      expect(
        cases.some((c) => c.refusal !== null),
        `${type} refused`,
      ).toBe(true);
    }
  });

  it.each(vectors.node.map((c) => [`${c.type}: ${c.label}`, c] as const))('node: %s', (_label, c) => {
    let tx = envelope(c.type, c.from, { to: c.to, amount: c.amount, data: c.data });
    if (c.envelope === 'eth') tx = { ...tx, envelope: 'eth', gasLimit: '21000' } as unknown as SignedTx;
    expect(validate(tx) ?? null).toBe(c.refusal);
  });

  it.each(vectors.sdk.map((c) => [c.label, c] as const))('sdk: %s', (_label, c) => {
    let got: unknown;
    try {
      got = { built: buildAssetTx(c.input) };
    } catch (e) {
      if (!isCairnError(e)) throw e;
      got = { refusal: { field: e.meta.field, message: e.message } };
    }
    expect(got).toStrictEqual(c.built !== undefined ? { built: c.built } : { refusal: c.refusal });
  });

  it('names a lone surrogate the same way for TOKEN_CREATE and NFT_CREATE, node and SDK', () => {
    const lone = 'ab\uD800cd';
    expect(
      validate(
        envelope('NFT_CREATE', '0x00000000000000000000000000000000000a11ce', { data: { name: lone, symbol: 'S' } }),
      ),
    ).toBe('NFT_CREATE data.name must not contain control characters');
    expect(
      validate(
        envelope('TOKEN_CREATE', '0x00000000000000000000000000000000000a11ce', {
          data: { name: lone, symbol: 'S', decimals: 0, supply: '1' },
        }),
      ),
    ).toBe('TOKEN_CREATE data.name must be 1 to 64 UTF-8 bytes without control characters');
    for (const input of [
      { type: 'NFT_CREATE', name: lone, symbol: 'S' },
      { type: 'TOKEN_CREATE', name: lone, symbol: 'S', decimals: 0, supply: '1' },
    ] as AssetTxInput[]) {
      expect(() => buildAssetTx(input)).toThrow(/^name must not contain control characters$/);
    }
    // a well-formed surrogate pair is text
    expect(
      validate(
        envelope('NFT_CREATE', '0x00000000000000000000000000000000000a11ce', {
          data: { name: 'rock 🪨', symbol: 'S' },
        }),
      ),
    ).toBeUndefined();
  });
});
