import { keccak256 } from '../crypto/keccak';
import { fromHex, type Hex } from '../primitives/hex';
import { getMany, type KvReader } from './kv';
import { decodeNode, EMPTY_TRIE_ROOT } from './mptCodec';
import { nodeKey } from './trieNodes';
import { childRefs } from './trieGc';

/**
 * Fetching a whole state trie from peers nobody trusts, node by node (state sync). Every node
 * is asked for by its hash and kept only if its keccak is that hash, starting from a root
 * taken from a header the node trusts: what is kept is exactly the trie that root names, and
 * a wrong answer costs one hash. Depth-first (the newest hashes are asked for first), so what
 * waits stays small — about 16 per level of the trie — whatever the state's size. The caller
 * fetches, writes what `accept` took, and gives back what a peer did not give (`retry`).
 *
 * A node already in the store (a sync resumed after a crash) is taken from it (`fromStore`):
 * its children are still walked, since a crash may have come before they were written.
 */
export class TrieSync {
  private readonly queue: Uint8Array[] = [];
  private inFlight = 0;
  /** Nodes accepted (fetched or found in the store) and their bytes. */
  nodes = 0;
  bytes = 0;

  constructor(root: Hex) {
    if (root.toLowerCase() !== EMPTY_TRIE_ROOT) this.queue.push(fromHex(root));
  }

  /** The whole trie is here: nothing left to ask for, nothing asked for is outstanding. */
  get done(): boolean {
    return this.queue.length === 0 && this.inFlight === 0;
  }

  /** Hashes waiting to be asked for. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Up to `n` hashes to ask for (the newest waiting); each must come back through `accept` or `retry`. */
  take(n: number): Uint8Array[] {
    const out = this.queue.splice(Math.max(0, this.queue.length - n));
    this.inFlight += out.length;
    return out;
  }

  /** Hashes a peer did not give (or gave wrongly): asked for again, of another peer. */
  retry(hashes: readonly Uint8Array[]): void {
    this.inFlight -= hashes.length;
    this.queue.push(...hashes);
  }

  /**
   * The bytes a peer gave for `hash`: refused (false) unless their keccak is `hash` and they
   * decode as a trie node; otherwise kept, and the node's children are asked for next.
   */
  accept(hash: Uint8Array, enc: Uint8Array): boolean {
    if (Buffer.compare(keccak256(enc), hash) !== 0) return false;
    let children: Uint8Array[];
    try {
      const hex = Buffer.from(hash).toString('hex');
      children = [];
      childRefs(decodeNode(enc, hash, hex), children);
    } catch {
      return false;
    }
    this.inFlight--;
    this.nodes++;
    this.bytes += enc.length;
    this.queue.push(...children);
    return true;
  }

  /**
   * Of `hashes` (taken), those the store does not hold: the others are accepted from it. A
   * stored node that fails its hash (a damaged store) is asked for again.
   */
  async fromStore(kv: KvReader, hashes: readonly Uint8Array[]): Promise<Uint8Array[]> {
    const stored = await getMany(
      kv,
      hashes.map((h) => nodeKey(Buffer.from(h).toString('hex'))),
    );
    return hashes.filter((h, i) => {
      const enc = stored[i];
      return enc === undefined || !this.accept(h, enc);
    });
  }
}
