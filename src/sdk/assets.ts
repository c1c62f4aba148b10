import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { Address } from '../protocol/types';
import { parseAddress } from '../crypto/address';
import { CairnError } from '../errors/CairnError';
import { assetId } from '../modules/assets/common';
import { NAME_FIELDS } from '../modules/names/fields';
import { entryOf, isImplemented, REGISTRY, TX_TYPES, type ImplementedTxType, type Registry } from '../modules/registry';
import type { AnyTxEntry, Field, ToRule } from '../modules/tx/entry';
import { ADDRESS_INPUT, show, type TokenAmount } from '../modules/tx/fields';
import type { Hex } from '../primitives/hex';
// The response shapes are the server's own types (views/, type-only: nothing of the node is
// bundled into the SDK), so the two cannot drift apart.
import type {
  CollectionDetail,
  CollectionList,
  CollectionView,
  Cursor,
  HeightCursor,
  HolderView,
  ItemView,
  NameEntryView,
  NameList,
  NameResolutionView,
  TokenHolders,
  TokenList,
  TokenTransfers,
  TokenTransferView,
  TokenView,
} from '../views';

/**
 * Typed builders of the asset transactions (FT20 tokens, NFT721 collections, names):
 * one input shape per type → the unsigned fields {type, to, amount, data} that signTx
 * takes (plus a nonce). They check the input's shape only, with the very rules the node
 * validates (each type's registry entry, modules/registry.ts): whether the transaction can
 * succeed (ownership, balances, pauses…) is for the node to decide. Errors are
 * CairnError('INVALID_ASSET_TX') whose message starts with the offending field's name and
 * whose meta.field names it.
 */

type Prefixed<P extends string> = Extract<ImplementedTxType, `${P}_${string}`>;
export type AssetTxType = Prefixed<'TOKEN'> | Prefixed<'NFT'> | Prefixed<'NAME'>;
const ofPrefix = <P extends string>(p: P) => TX_TYPES.filter((t): t is Prefixed<P> => t.startsWith(`${p}_`));
export const TOKEN_TX_TYPES: readonly Prefixed<'TOKEN'>[] = ofPrefix('TOKEN');
export const NFT_TX_TYPES: readonly Prefixed<'NFT'>[] = ofPrefix('NFT');
export const NAME_TX_TYPES: readonly Prefixed<'NAME'>[] = ofPrefix('NAME');
export const ASSET_TX_TYPES: readonly AssetTxType[] = [...TOKEN_TX_TYPES, ...NFT_TX_TYPES, ...NAME_TX_TYPES];
const isAssetType = (t: unknown): t is AssetTxType => (ASSET_TX_TYPES as readonly unknown[]).includes(t);

/** A token amount in the token's base units: integer string, bigint or safe integer. */
export type { TokenAmount };
/** 0x (any case) or cairn1… address. */
export type AddressInput = string;

/** What the SDK takes for each data field (required ones required, optional ones optional). */
type DataInput<F> = {
  [K in keyof F as F[K] extends { readonly optional: true } ? never : K]: F[K] extends Field<unknown, infer I>
    ? I
    : never;
} & {
  [K in keyof F as F[K] extends { readonly optional: true } ? K : never]?: F[K] extends Field<unknown, infer I>
    ? I
    : never;
};
/** The input field that fills the envelope's `to` (`to`, `spender`, `target`, `owner`, `approved`). */
type ToInput<R> = R extends { kind: 'required' }
  ? { [P in R extends { input: infer N extends string } ? N : 'to']: AddressInput }
  : R extends { kind: 'optional'; explicit: true; input: infer N extends string }
    ? { [P in N]: AddressInput | null }
    : R extends { kind: 'optional'; input: infer N extends string }
      ? { [P in N]?: AddressInput | null }
      : unknown;
type Flat<T> = { [K in keyof T]: T[K] } & {};
type InputOf<K extends AssetTxType> = Flat<
  { type: K } & DataInput<NonNullable<Registry[K]['fields']>> & ToInput<Registry[K]['to']>
>;

/**
 * One asset transaction's input, derived from its registry entry: its data fields (amounts
 * as TokenAmount, addresses as AddressInput) and the input that fills the envelope's `to`
 * (TOKEN_APPROVE's `spender`, TOKEN_BLACKLIST's and NAME_*'s `target`, NAME_TRANSFER's
 * `owner`, NFT_APPROVE's `approved` — null clears it; NAME_REGISTER's `target` defaults to
 * the sender).
 */
export type AssetTxInput = { [K in AssetTxType]: InputOf<K> }[AssetTxType];

/** The unsigned fields of an asset transaction: pass them with a nonce to signTx. */
export interface UnsignedAssetTx {
  type: AssetTxType;
  to: Address | null;
  amount: string;
  data: Record<string, unknown>;
}

/**
 * The message is `<field> <problem>`; meta carries both, so a caller can name the field its own way (the CLI: as a
 * flag).
 */
function invalid(field: string, problem: string): never {
  throw new CairnError('INVALID_ASSET_TX', `${field} ${problem}`, { field, problem });
}

/** Each check compiled once, on first use. */
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();
const passes = (schema: TSchema, v: unknown): boolean => {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  return c.Check(v);
};

/** The envelope's `to` from the input field the entry names (`to`, `spender`, `target`…). */
function partyOf(rule: ToRule, input: Record<string, unknown>): Address | null {
  if (rule.kind === 'none') return null;
  const name = rule.input ?? 'to';
  const v = input[name];
  if (rule.kind === 'optional' && (v === null || (v === undefined && !rule.explicit))) return null;
  const a = typeof v === 'string' ? parseAddress(v) : undefined;
  if (a === undefined) invalid(name, ADDRESS_INPUT(show(v)));
  return a;
}

/** One data value from its input: converted (amounts to strings, cairn1… to 0x), then the entry's checks. */
function fieldValue(key: string, field: Field, v: unknown): unknown {
  let value = v;
  if (field.input) {
    value = field.input.convert(v);
    if (value === undefined) invalid(key, field.input.refused(show(v)));
  }
  for (const c of field.checks) if (!passes(c.schema, value)) invalid(key, c.sdk(show(v)));
  return value;
}

/**
 * The types the builder takes beyond the asset ones: every implemented type but the VM's
 * (built from code and a gas limit: `VmTx`), with their inputs checked at run time by the
 * same entry rules. The envelope amount of a type whose amount is positive is the input its
 * entry names (`amount`, GOV_PROPOSE's `deposit`, AI_TASK's `reward`, AI_CHALLENGE's `bond`), in base
 * units of the native coin; ORACLE_REGISTER's `amount` may be absent or 0 (leaving).
 */
export type EconTxType = Exclude<ImplementedTxType, AssetTxType | 'VM_DEPLOY' | 'VM_CALL' | 'VM_TRANSFER'>;
export const ECON_TX_TYPES = TX_TYPES.filter((t): t is EconTxType => !isAssetType(t) && !t.startsWith('VM_'));
/** Its input: data fields and `to` as for the asset types, plus the coins of a positive envelope amount. */
type EconInputOf<K extends EconTxType> = Flat<
  { type: K } & DataInput<NonNullable<Registry[K]['fields']>> &
    ToInput<Registry[K]['to']> & {
      amount?: TokenAmount;
      deposit?: TokenAmount;
      reward?: TokenAmount;
      bond?: TokenAmount;
    }
>;
export type EconTxInput = { [K in EconTxType]: EconInputOf<K> }[EconTxType];
export type TxInput = AssetTxInput | EconTxInput;
export interface UnsignedTx extends Omit<UnsignedAssetTx, 'type'> {
  type: AssetTxType | EconTxType;
}

/** A native amount input: integer string, bigint or safe integer of base units, > 0. */
function coinsOf(name: string, v: unknown): string {
  const s = typeof v === 'bigint' ? v.toString(10) : typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v;
  if (typeof s !== 'string' || !/^[1-9][0-9]{0,77}$/.test(s))
    invalid(name, `must be a positive integer of base units (1 coin = 1000000), got ${show(v)}`);
  return s;
}

/** The unsigned fields of one asset transaction. Throws CairnError('INVALID_ASSET_TX') on bad input. */
export function buildAssetTx(input: AssetTxInput): UnsignedAssetTx {
  const type = (input as { type?: unknown } | null)?.type;
  if (input !== null && typeof input === 'object' && !isAssetType(type))
    invalid('type', `must be one of ${ASSET_TX_TYPES.join(', ')}, got ${show(type)}`);
  return buildTx(input) as UnsignedAssetTx;
}

/**
 * The unsigned fields of one transaction of any type but the VM's. Throws CairnError('INVALID_ASSET_TX') on bad input.
 */
export function buildTx(input: TxInput): UnsignedTx {
  if (input === null || typeof input !== 'object')
    throw new CairnError('INVALID_ASSET_TX', 'input must be an object with a type', { field: 'type' });
  const type = (input as { type?: unknown }).type;
  const buildable = [...ASSET_TX_TYPES, ...ECON_TX_TYPES] as readonly unknown[];
  if (!buildable.includes(type))
    invalid('type', `must be one of ${ASSET_TX_TYPES.join(', ')}, ${ECON_TX_TYPES.join(', ')}, got ${show(type)}`);
  const entry: AnyTxEntry = REGISTRY[type as AssetTxType | EconTxType];
  const i = input as unknown as Record<string, unknown>;
  const toLast = entry.to.kind === 'required' && entry.to.inputLast === true;
  let to = toLast ? null : partyOf(entry.to, i);
  const fields: Record<string, Field> = entry.fields ?? {};
  const data: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    if (i[key] === undefined && field.optional) continue;
    data[key] = fieldValue(key, field, i[key]);
  }
  if (toLast) to = partyOf(entry.to, i);
  if (entry.dataRules?.length) {
    const typed = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.read(data[k])]));
    for (const rule of entry.dataRules) if (rule.broken(typed)) invalid(rule.sdk.field, rule.sdk.message);
  }
  const rule = entry.amount;
  const amount =
    rule?.kind === 'exactly'
      ? rule.value.toString(10)
      : rule?.kind === 'positive'
        ? coinsOf(rule.input ?? 'amount', i[rule.input ?? 'amount'])
        : rule?.kind === 'any' && i.amount !== undefined && i.amount !== 0 && i.amount !== 0n && i.amount !== '0'
          ? coinsOf('amount', i.amount)
          : '0';
  return { type: type as UnsignedTx['type'], to, amount, data };
}

/** NS names: 3–32 characters of a–z, 0–9 and '-', not starting or ending with '-' (the entries' name rule). */
export function isValidName(v: unknown): v is string {
  return NAME_FIELDS.name.checks.every((c) => passes(c.schema, v));
}

/**
 * The id of the token or collection a transaction creates (the types whose entry has
 * `creates`), known as soon as it is signed; undefined for other types.
 */
export function createdAssetId(tx: { type: string; id: Hex }): Hex | undefined {
  return createdAssetKind(tx.type) !== undefined ? assetId(tx.id) : undefined;
}

/** What a created asset is called ("token", "collection"), for types that create one. */
export const createdAssetKind = (type: string): string | undefined =>
  isImplemented(type) ? entryOf(type)?.creates : undefined;

export { assetId };

// ---------------------------------------------------------------------------------------
// Read endpoints (GET /tokens…, /nfts…, /names, /name/:name)

export type {
  Cursor,
  HeightCursor,
  TokenView,
  CollectionView,
  TokenList,
  TokenHolders,
  TokenTransfers,
  CollectionDetail,
  CollectionList,
  NameList,
};

export interface PageOptions {
  limit?: number;
  /**
   * A page's `nextBefore`: a height on tokens, transfers, collections and names (any block height works); a cursor on
   * holders and items.
   */
  before?: HeightCursor | Cursor;
}

export type TokenHolder = HolderView;
/** A mint has from null, a burn to null. */
export type TokenTransfer = TokenTransferView;
/** GET /nfts/:collection:item. */
export type NftItemView = ItemView;
/** A name as GET /names lists it. */
export type NameEntry = NameEntryView;
/** GET /name/:name. `address` is what the name resolves to. */
export type NameView = NameResolutionView;
