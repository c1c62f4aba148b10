import { fromHex, type Hex } from '../primitives/hex';
import { getMany, type KvStore } from './kv';
import { decodeNode, EMPTY_TRIE_ROOT } from './mptCodec';
import { Full, isHashRef, type Child, type Node } from './mptNode';
import { NODE_PREFIX, nodeKey } from './trieNodes';

/**
 * Collecting the state nodes no kept root reaches (mark and sweep). Nodes are
 * content-addressed and written by every block that creates them, so a node is garbage once
 * no kept root reaches it — as long as a node written after the mark began is never deleted
 * (a new block may create again what an old one had): the caller excludes those
 * (actors/consensus/stateGc.ts), and deletes in the store's one writer, between blocks.
 */

/** A node hash as a compact Set key (32 one-byte characters). */
const keyOf = (hash: Uint8Array): string =>
  Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('latin1');

/** Hashes of stored nodes a node refers to (embedded nodes are walked in place). */
export function childRefs(n: Node, out: Uint8Array[]): void {
  const visit = (c: Child | Uint8Array): void => {
    if (c === null) return;
    if (isHashRef(c)) out.push(c);
    else childRefs(c, out);
  };
  if (n instanceof Full) for (const c of n.children) visit(c);
  else if (!n.isLeaf) visit(n.val as Child);
}

/** Reads per multi-get while marking. */
const MARK_CHUNK = 1_024;

/** The nodes reachable from some roots (~70 bytes of memory per node). */
export class ReachableNodes {
  private readonly seen = new Set<string>();

  get size(): number {
    return this.seen.size;
  }

  has(hash: Uint8Array): boolean {
    return this.seen.has(keyOf(hash));
  }

  /**
   * Marks every node reachable from `root`, level by level, `MARK_CHUNK` reads at a time. A
   * node marked by an earlier root is not walked again: its whole subtree was marked with it
   * (a walk always runs to the end; one that fails leaves this set unusable). A missing node
   * throws STATE_MISSING_NODE: a kept root must be whole.
   */
  async markFrom(kv: KvStore, root: Hex): Promise<void> {
    if (root.toLowerCase() === EMPTY_TRIE_ROOT) return;
    let frontier: Uint8Array[] = [fromHex(root)];
    while (frontier.length > 0) {
      const next: Uint8Array[] = [];
      for (let i = 0; i < frontier.length; i += MARK_CHUNK) {
        const hashes = frontier.slice(i, i + MARK_CHUNK).filter((h) => {
          const k = keyOf(h);
          if (this.seen.has(k)) return false;
          this.seen.add(k);
          return true;
        });
        const hexes = hashes.map((h) => Buffer.from(h).toString('hex'));
        const encs = await getMany(kv, hexes.map(nodeKey));
        hashes.forEach((h, j) => {
          const hex = hexes[j];
          const enc = encs[j];
          if (!enc) throw new Error(`state trie node 0x${hex} of a kept root is missing`);
          childRefs(decodeNode(enc, h, hex), next);
        });
      }
      frontier = next;
    }
  }
}

/**
 * The keys of stored nodes that `reachable` does not hold, in chunks of `chunk`: the store as
 * of the call (a node written later is not seen). `wait` is awaited before each chunk is
 * yielded (backpressure: the deleter keeps up).
 */
export async function* unreachableNodes(
  kv: KvStore,
  reachable: ReachableNodes,
  chunk = 4_096,
): AsyncGenerator<Uint8Array[]> {
  const end = Buffer.from(NODE_PREFIX);
  end[end.length - 1]++;
  let out: Uint8Array[] = [];
  for await (const [k] of kv.iterate({ gte: NODE_PREFIX, lt: end })) {
    if (reachable.has(k.subarray(NODE_PREFIX.length))) continue;
    out.push(Buffer.from(k));
    if (out.length >= chunk) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}

/** The Set key of a node's store key (what a deleter compares with the nodes written since the mark). */
export const storedNodeId = (key: Uint8Array): string => keyOf(key.subarray(NODE_PREFIX.length));

/** Whether a store key is a state node's. */
export const isNodeKey = (key: Uint8Array): boolean =>
  key.length === NODE_PREFIX.length + 32 && key[0] === NODE_PREFIX[0] && key[1] === NODE_PREFIX[1];
