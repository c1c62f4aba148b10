import { Type } from '@sinclair/typebox';
import { parseAddress } from '../../crypto/address';
import { pqKeyHashOf, txId } from '../../crypto/txSigning';
import type { Hex } from '../../primitives/hex';
import { TxFailure } from '../../protocol/handler';
import { governedRefusal } from '../../protocol/permissions';
import { wrapRefusal } from '../../protocol/refusal';
import type { Address, HybridTx, SignedTx } from '../../protocol/types';
import type { Field } from '../tx/entry';
import { defineTx } from '../tx/define';
import { addressesIn, check } from '../tx/fields';
import { innerHandler } from '../tx/inner';
import { RELAY } from './errors';

/**
 * META_TX: a relayer submits a user's signed TRANSFER or TOKEN_TRANSFER (data.tx, the very
 * envelope the user would POST to /tx, with fee "0") and pays its energy like any sender —
 * applyTx charges the META_TX's sender, the one place fees are burned. The inner transaction
 * uses the user's nonce (advanced here), so it runs at most once, and a failure of the inner
 * fails the META_TX with everything reverted (the user's nonce included).
 *
 * Admission checks the inner's shape and its own type's rules (cheap, stateless); its id is
 * recomputed from its payload, and its signatures are the META_TX's own (`nested`): checked
 * with the outer ones in the verify pool at admission and import — the cost the 500 base
 * energy pays for — so a bad one is `invalid signature` and can never be in a block. At
 * execution the inner is judged exactly as if its user had sent it: its nonce, its key
 * binding and the user's permission (governedRefusal, the check applyTx makes).
 */
export const RELAYABLE = ['TRANSFER', 'TOKEN_TRANSFER'] as const;
const AMOUNT = '^(0|[1-9][0-9]{0,77})$';
/** Keys and signatures, checked natively (a pattern costs ~15 µs on a 2,420-byte signature, four per META_TX). */
const HEX = Type.String({ format: 'cairn.hex' });

const ENVELOPE = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' })),
    chainId: Type.Integer(),
    type: Type.String(),
    from: Type.String({ format: 'cairn.address' }),
    to: Type.Union([Type.Null(), Type.String({ format: 'cairn.address' })]),
    amount: Type.String({ pattern: AMOUNT }),
    nonce: Type.Integer({ minimum: 0 }),
    timestamp: Type.Integer({ minimum: 1 }),
    fee: Type.String({ pattern: AMOUNT }),
    data: Type.Optional(Type.Unknown()),
    publicKeys: Type.Object({ secp256k1: HEX, mldsa44: HEX }, { additionalProperties: false }),
    signatures: Type.Object({ secp256k1: HEX, mldsa44: HEX }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

type RawEnvelope = {
  id?: string;
  chainId: number;
  type: string;
  from: string;
  to: string | null;
  amount: string;
  nonce: number;
  timestamp: number;
  fee: string;
  data?: unknown;
  publicKeys: HybridTx['publicKeys'];
  signatures: HybridTx['signatures'];
};
const lower = (h: string): Hex => `0x${h.slice(2).toLowerCase()}`;

/** The inner envelope as a transaction: addresses in 0x lower case, the id recomputed from the payload. */
const inners = new WeakMap<object, HybridTx & { claimedId: Hex | null }>();
function readInner(v: unknown): HybridTx & { claimedId: Hex | null } {
  if (typeof v !== 'object' || v === null) return readInnerOnce(v); // not a checked envelope: its use fails on its own
  let inner = inners.get(v);
  if (!inner) inners.set(v, (inner = readInnerOnce(v)));
  return inner;
}
function readInnerOnce(v: unknown): HybridTx & { claimedId: Hex | null } {
  const o = v as RawEnvelope;
  const payload = {
    chainId: o.chainId,
    type: o.type as HybridTx['type'],
    from: parseAddress(o.from)!,
    to: o.to === null ? null : parseAddress(o.to)!,
    amount: o.amount,
    nonce: o.nonce,
    timestamp: o.timestamp,
    fee: o.fee,
    data: o.data ?? null,
  };
  return {
    ...payload,
    id: txId(payload),
    claimedId: o.id === undefined ? null : lower(o.id),
    publicKeys: { secp256k1: lower(o.publicKeys.secp256k1), mldsa44: lower(o.publicKeys.mldsa44) },
    signatures: { secp256k1: lower(o.signatures.secp256k1), mldsa44: lower(o.signatures.mldsa44) },
  };
}

function innerField(doc: string): Field<ReturnType<typeof readInner>, unknown> {
  const shape =
    'must be a signed hybrid envelope ' +
    '{chainId, type, from, to, amount, nonce, timestamp, fee, data, publicKeys, signatures, id?}';
  return {
    checks: [
      check(ENVELOPE, shape, (got) => `${shape}, got ${got}`),
      check(
        Type.Object({ type: Type.Union(RELAYABLE.map((t) => Type.Literal(t))) }),
        `must be a ${RELAYABLE.join(' or ')}`,
        () => `must be a ${RELAYABLE.join(' or ')}`,
      ),
      check(
        Type.Object({ fee: Type.Literal('0') }),
        'must have fee "0": the relayer pays',
        () => 'must have fee "0": the relayer pays',
      ),
    ],
    read: readInner,
    refine: (tx, inner) => {
      // The outer transaction's chain id is this chain's (checked at decoding).
      if (inner.chainId !== tx.chainId) return `META_TX data.tx must be for chain ${tx.chainId}`;
      if (inner.from === tx.from) return "META_TX relays another account's transaction: send your own directly";
      if (inner.claimedId !== null && inner.claimedId !== inner.id)
        return 'META_TX data.tx id does not match its payload';
      const r = innerHandler(inner.type)!.validate(inner);
      return r === undefined ? undefined : `META_TX data.tx: ${r}`;
    },
    doc,
  };
}

const BASE_ENERGY = 500n;
/**
 * Before a refusal of the inner transaction (the user's permission, or the inner's own handler), whose code it keeps.
 */
const INNER_FAILED = 'META_TX inner transaction failed: ';

/**
 * The inner envelope of an admitted META_TX (admission, import and execution all ask: read once per data.tx object).
 */
const innerOf = (tx: SignedTx): HybridTx => readInner((tx.data as { tx: unknown }).tx);

export const metaTx = defineTx({
  type: 'META_TX',
  module: 'relay',
  summary:
    'a relayer submits a user\'s signed TRANSFER or TOKEN_TRANSFER (data.tx, fee "0") and pays its energy; ' +
    "the user's nonce is used",
  to: { kind: 'none' },
  fields: {
    tx: innerField(
      'the user\'s signed hybrid envelope (as POSTed to /tx) of a TRANSFER or TOKEN_TRANSFER with fee "0"',
    ),
  },
  parties: (tx) => addressesIn((tx.data as { tx: { from: unknown; to: unknown } }).tx, ['from', 'to']),
  nested: (tx) => [innerOf(tx)],
  energy: {
    most: (tx) => {
      const inner = (tx.data as { tx: { type: string } }).tx;
      return BASE_ENERGY + innerHandler(inner.type)!.maxEnergy(inner as SignedTx);
    },
    doc: "500 (the inner signature check) + the inner type's energy",
  },
  // The inner's signatures passed with the META_TX's own (applyTx: nestedVerified); its state-bound checks are here.
  async run(ctx, { tx: inner }) {
    const { state } = ctx;
    const user: Address = inner.from;
    const acc = await state.getAccount(user);
    if (!acc) throw new TxFailure(RELAY.META_TX_INNER_NO_ACCOUNT({ user }));
    if (inner.nonce !== acc.nonce)
      throw new TxFailure(RELAY.META_TX_INNER_NONCE({ user, expected: acc.nonce, got: inner.nonce }));
    const keyHash = pqKeyHashOf(inner)!; // the inner object is one per data.tx (readInner), so this is hashed once
    if (acc.mldsaKeyHash !== null && acc.mldsaKeyHash !== keyHash)
      throw new TxFailure(RELAY.META_TX_INNER_KEY_MISMATCH({ user }));
    const governed = await governedRefusal(state, user, inner);
    if (governed !== undefined) throw new TxFailure(wrapRefusal(governed, INNER_FAILED));
    acc.nonce += 1;
    acc.mldsaKeyHash ??= keyHash;
    await state.putAccount(user, acc);
    const { claimedId: _, ...tx } = inner;
    try {
      const out = await innerHandler(tx.type)!.execute({ ...ctx, sender: user, tx });
      return { energy: BASE_ENERGY + out.energy, events: out.events ?? [] };
    } catch (e) {
      if (e instanceof TxFailure) throw new TxFailure(wrapRefusal(e.refusal, INNER_FAILED));
      throw e;
    }
  },
});
