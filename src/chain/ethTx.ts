import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx';
import { bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util';
import { addressFromPublicKey } from '../crypto/address';
import { nativeSecp256k1 } from '../crypto/nativeSecp';
import { keccakHex } from '../crypto/hash';
import { fromHex, isHex, toHex, type Hex } from '../primitives/hex';
import { txDecodeCommonFor } from '../vm/common';
import { MAX_DATA_BYTES, VM_MAX_GAS } from '../protocol/params';
import type { Address, EthTx, TxType } from '../protocol/types';

const WEI_PER_BASE = 10n ** 12n;
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/**
 * The sender from the signature. Native libsecp256k1 recovery takes ~50 µs against 1–2 ms
 * for the library's pure-JS path, which under a burst of raw transactions starved block
 * production on the main thread; the library path remains the fallback. High-s signatures
 * were already refused by the transaction constructor (EIP-2).
 */
function recoverSender(t: TypedTransaction, chainId: number): Address | undefined {
  try {
    if (nativeSecp256k1 && t.r !== undefined && t.s !== undefined && t.v !== undefined) {
      const recid = t.type === 0 ? Number(t.v - (BigInt(chainId) * 2n + 35n)) : Number(t.v);
      if (recid !== 0 && recid !== 1) return undefined;
      const sig = new Uint8Array(64);
      sig.set(setLengthLeft(bigIntToBytes(t.r), 32), 0);
      sig.set(setLengthLeft(bigIntToBytes(t.s), 32), 32);
      const pub = nativeSecp256k1.ecdsaRecover(sig, recid, t.getHashedMessageToSign(), false);
      return addressFromPublicKey(pub);
    }
    if (!t.verifySignature()) return undefined;
    return t.getSenderAddress().toString().toLowerCase() as Address;
  } catch {
    return undefined;
  }
}

export type EthDecodeResult = { ok: true; tx: EthTx } | { ok: false; error: string; signature?: boolean };

/** Largest raw transaction accepted: the data limit plus room for the envelope fields. */
export const MAX_RAW_TX_BYTES = MAX_DATA_BYTES + 4_096;

/**
 * Decodes a signed Ethereum transaction (legacy EIP-155, EIP-2930, EIP-1559) for chain
 * `chainId` (the node's: EIP-155 is what binds an Ethereum envelope to one network) into an
 * EthTx. Stateless: structure, chain id, gas bounds and the signature (the sender is
 * recovered from it). `signature: true` on failure means the refusal reason is
 * `invalid signature`; other failures are malformed input (400).
 */
export function decodeEthTx(raw: unknown, now: number, chainId: number): EthDecodeResult {
  if (!isHex(raw) || raw.length < 4) return { ok: false, error: 'raw transaction must be 0x-prefixed hex' };
  if ((raw.length - 2) / 2 > MAX_RAW_TX_BYTES)
    return { ok: false, error: `raw transaction exceeds ${MAX_RAW_TX_BYTES} bytes` };
  const bytes = fromHex(raw);
  let t: TypedTransaction;
  try {
    t = createTxFromRLP(bytes, { common: txDecodeCommonFor(chainId) }) as TypedTransaction;
  } catch (e) {
    const m = (e as Error).message;
    if (/chain ?id/i.test(m)) return { ok: false, error: `wrong chain id: this node is chain ${chainId}` };
    return { ok: false, error: `malformed raw transaction: ${m.split('\n')[0].slice(0, 200)}` };
  }
  if (t.type > 2)
    return { ok: false, error: `unsupported transaction type ${t.type}: legacy, EIP-2930 and EIP-1559 are accepted` };
  if (t.type === 0 && !(t as { supports(n: number): boolean }).supports(155))
    return { ok: false, error: `legacy transactions must be EIP-155 protected (chain id ${chainId})` };
  if (BigInt((t as { common: { chainId(): bigint } }).common.chainId()) !== BigInt(chainId))
    return { ok: false, error: `wrong chain id: this node is chain ${chainId}` };
  if (!t.isSigned()) return { ok: false, error: 'transaction is not signed', signature: true };
  const from = recoverSender(t, chainId);
  if (!from) return { ok: false, error: 'invalid signature', signature: true };
  if (t.gasLimit > VM_MAX_GAS) return { ok: false, error: `gas limit ${t.gasLimit} exceeds VM_MAX_GAS ${VM_MAX_GAS}` };
  const minGas = t.getMinimumGasLimit();
  if (t.gasLimit < minGas) return { ok: false, error: `intrinsic gas too low: needs at least ${minGas}` };
  if (t.data.length > MAX_DATA_BYTES) return { ok: false, error: `data exceeds ${MAX_DATA_BYTES} bytes` };
  if (t.nonce > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, error: 'nonce out of range' };

  const gasPrice =
    'maxFeePerGas' in t ? (t as { maxFeePerGas: bigint }).maxFeePerGas : (t as { gasPrice: bigint }).gasPrice;
  const to = t.to ? (t.to.toString().toLowerCase() as Address) : null;
  const type: TxType = to === null ? 'VM_DEPLOY' : t.data.length === 0 ? 'VM_TRANSFER' : 'VM_CALL';
  const accessList =
    'accessList' in t && Array.isArray((t as { accessList: unknown }).accessList)
      ? (t as unknown as { accessList: [Uint8Array, Uint8Array[]][] }).accessList.map(([a, keys]) => ({
          address: bytesToHex(a).toLowerCase() as Address,
          storageKeys: keys.map((k) => bytesToHex(k) as Hex),
        }))
      : [];
  const tx: EthTx = {
    envelope: 'eth',
    id: keccakHex(bytes),
    raw: toHex(bytes),
    chainId,
    type,
    from,
    to,
    amount: ceilDiv(t.value, WEI_PER_BASE).toString(),
    nonce: Number(t.nonce),
    timestamp: now,
    fee: ceilDiv(t.gasLimit * gasPrice, WEI_PER_BASE).toString(),
    data: null,
    gasLimit: t.gasLimit.toString(),
    gasPrice: gasPrice.toString(),
    valueWei: t.value.toString(),
    input: toHex(t.data),
    ...(accessList.length ? { accessList } : {}),
  };
  return { ok: true, tx };
}
