import { verifyMerkleProof } from '@ethereumjs/mpt';
import type { AccountState, Address } from '../protocol/types';
import { CairnError } from '../errors/CairnError';
import { type Hex, fromHex, isHex } from '../primitives/hex';
import { decodeAccount } from './account';
import { EMPTY_TRIE_ROOT } from './mptCodec';
import { addressKey } from './trieKeys';

/**
 * Checks an account proof against a state root without trusting whoever sent it:
 * every node is found by its keccak hash starting from `stateRoot`, so a changed,
 * missing or foreign node breaks the chain of hashes.
 * Returns the proven account, or null when the proof shows the account does not exist.
 * Throws CairnError 'BAD_PROOF' when the proof does not match the root.
 */
export async function verifyAccountProof(stateRoot: Hex, address: Address, proof: Hex[]): Promise<AccountState | null> {
  if (!isHex(stateRoot, 32)) throw badProof('state root is not 32-byte hex');
  const key = addressKey(address);
  if (!Array.isArray(proof) || !proof.every((n) => isHex(n) && n.length > 2))
    throw badProof('proof must be a list of non-empty hex nodes');
  // The empty trie has no nodes: every account is absent from it.
  if (stateRoot.toLowerCase() === EMPTY_TRIE_ROOT) return null;

  let value: Uint8Array | null;
  try {
    value = await verifyMerkleProof(key, proof.map(fromHex), { root: fromHex(stateRoot), useKeyHashing: true });
  } catch (e) {
    throw badProof('proof does not match the state root', e);
  }
  if (value === null) return null;
  try {
    return decodeAccount(value);
  } catch (e) {
    throw badProof('proven value is not an account', e);
  }
}

const badProof = (why: string, cause?: unknown) =>
  new CairnError('BAD_PROOF', `invalid state proof: ${why}`, {}, { cause });
