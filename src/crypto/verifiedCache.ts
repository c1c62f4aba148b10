import { createHash } from 'node:crypto';
import type { VerifyJob } from './hybrid';

/**
 * Signature checks this node has already passed, by a digest of every byte they read (the
 * signing bytes, both keys, both signatures, each with its length). A transaction admitted to
 * the mempool was verified there; when the block that includes it arrives, its check is a
 * lookup (under load, hybrid verification was most of a block's import: 167–548 ms of a
 * block's 225–932 ms in the soak, for transactions every node had already verified once).
 * Only passes are kept: a failed check is cheap to repeat and is never trusted from memory.
 * Verification is a pure function of those bytes, so a hit answers exactly what a check would.
 */
export class VerifiedCache {
  private readonly passed = new Set<string>();
  hits = 0;

  constructor(private readonly cap = 65_536) {}

  static keyOf(job: VerifyJob): string {
    const parts = [job.msg, job.pubs.secp256k1, job.pubs.mldsa44, job.sigs.secp256k1, job.sigs.mldsa44];
    const h = createHash('sha256');
    h.update(new Uint32Array(parts.map((p) => p.length)));
    for (const p of parts) h.update(p);
    return h.digest('base64');
  }

  has(key: string): boolean {
    const hit = this.passed.has(key);
    if (hit) this.hits++;
    return hit;
  }

  add(key: string): void {
    if (this.passed.has(key)) return;
    this.passed.add(key);
    if (this.passed.size > this.cap) this.passed.delete(this.passed.values().next().value!);
  }

  get size(): number {
    return this.passed.size;
  }
}
