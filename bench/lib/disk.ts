import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { bucketOf, type BucketName } from '../../src/storage/buckets';
import { openStore } from '../../src/storage/rocks';

/** Bytes of every file under `dir` (what `du --apparent-size` says). */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

export interface StoreDisk {
  /** The chain directory's files as the node left them (SST files, the write-ahead log, the manifest). */
  asLeft: number;
  /** The same after a flush and a full compaction: what the data takes once RocksDB has settled it. */
  compacted: number;
  /** Key + value bytes per bucket (before RocksDB's own encoding), largest first. */
  buckets: [BucketName | 'unknown', number][];
}

/** What a node's store (`<dataDir>/chain`, the node stopped) takes on disk, and where it goes. */
export async function storeDisk(chainDir: string): Promise<StoreDisk> {
  const asLeft = dirBytes(chainDir);
  const kv = await openStore(chainDir);
  const per = new Map<BucketName | 'unknown', number>();
  try {
    await kv.compact();
    for await (const [k, v] of kv.iterate({})) {
      const b = bucketOf(k) ?? 'unknown';
      per.set(b, (per.get(b) ?? 0) + k.length + v.length);
    }
  } finally {
    await kv.close();
  }
  return { asLeft, compacted: dirBytes(chainDir), buckets: [...per].sort((a, b) => b[1] - a[1]) };
}

/** "block 2630 B, trieNodes 310 B, …": each bucket's logical bytes per transaction (those of at least 0.5 %). */
export function bucketsPerTx(d: StoreDisk, txs: number): string {
  const total = d.buckets.reduce((s, [, n]) => s + n, 0);
  return d.buckets
    .filter(([, n]) => n / total >= 0.005)
    .map(([b, n]) => `${b} ${Math.round(n / txs)} B`)
    .join(', ');
}
