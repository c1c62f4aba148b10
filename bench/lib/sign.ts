/**
 * Hybrid envelopes of development accounts, signed before a benchmark's clock starts: on
 * worker threads, and optionally cached in the OS temp dir so that a rerun of the same
 * shape starts at once. The cache key covers the items and the source files that shape
 * the bytes.
 *
 * ML-DSA-44 is signed with liboqs (WASM, 0.45 ms per signature here) rather than noble's
 * deterministic signer (3.3 ms): a 5,000 × 500 sync fixture is 2.5 M signatures. liboqs
 * signs hedged (randomized), which changes only the signature bytes: the transaction id
 * covers the payload only, and noble verifies these signatures (test/unit/bench/bench-sign.test.ts).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createMLDSA44 } from '@oqs/liboqs-js/sig';
import { encodeTx, signTx, type TxFields } from '../../src/chain/envelope';
import type { HybridSignatures } from '../../src/crypto/hybrid';
import type { HybridKeys } from '../../src/crypto/keys';
import type { Network } from '../../src/protocol/network';
import { deriveKeys, devSecret } from '../../src/crypto/keys';
import { ROOT } from './harness';

/** One envelope to sign: `fields` signed by development account `dev` (devSecret(dev)). */
export interface DevTxItem {
  dev: number;
  /** Structured-cloneable: amounts and fees as strings, no bigint in `data`. */
  fields: TxFields;
}

export interface SignedEnvelope {
  id: `0x${string}`;
  /** encodeTx output: the POST /tx body. */
  body: string;
}

const WORKER_TAG = 'cairn-bench-sign';

/** A hybrid signer whose ML-DSA-44 half is liboqs: the same scheme as signHybrid, hedged. */
export async function fastHybridSigner(): Promise<(keys: HybridKeys, msg: Uint8Array) => HybridSignatures> {
  const mldsa = await createMLDSA44();
  return (keys, msg) => ({
    secp256k1: secp256k1.sign(msg, keys.secp256k1.privateKey, { prehash: true, lowS: true, extraEntropy: false }),
    // liboqs checks `constructor.name === 'Uint8Array'`: hand it plain copies.
    mldsa44: mldsa.sign(new Uint8Array(msg), new Uint8Array(keys.mldsa44.secretKey)),
  });
}

async function signItems(items: DevTxItem[], network: Network): Promise<SignedEnvelope[]> {
  const sign = await fastHybridSigner();
  return items.map(({ dev, fields }) => {
    const tx = signTx(deriveKeys(devSecret(dev)), fields, network, sign); // deriveKeys caches per secret
    return { id: tx.id, body: encodeTx(tx) };
  });
}

/** The lines of a file of any size (read in chunks). */
function readLines(file: string): string[] {
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(1 << 24);
  const lines: string[] = [];
  let rest = '';
  try {
    for (let n: number; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      const parts = (rest + buf.toString('utf8', 0, n)).split('\n');
      rest = parts.pop()!;
      for (const l of parts) if (l) lines.push(l);
    }
  } finally {
    closeSync(fd);
  }
  if (rest) lines.push(rest);
  return lines;
}

/**
 * Signs `items` (in order) for `opts.network` (the chain the bench runs: networkOfSpec) on up to availableParallelism()
 * worker threads.
 */
export async function signDevTxs(
  items: DevTxItem[],
  opts: { network: Network; cache?: boolean; label?: string },
): Promise<SignedEnvelope[]> {
  const label = opts.label ?? 'bench';
  let cacheFile: string | null = null;
  if (opts.cache) {
    const h = createHash('sha256').update(JSON.stringify(items)).update(JSON.stringify(opts.network));
    for (const f of [
      'src/chain/envelope.ts',
      'src/crypto/hybrid.ts',
      'src/crypto/keys.ts',
      'src/protocol/params.ts',
      'src/primitives/canonical.ts',
    ]) {
      const p = join(ROOT, f);
      if (existsSync(p)) h.update(readFileSync(p));
    }
    // A cache kept between runs on purpose: with the other bench caches, not in the temp folder.
    const dir = join(process.env.CAIRN_BENCH_CACHE ?? join(homedir(), '.cache', 'cairn-bench'), 'signed');
    mkdirSync(dir, { recursive: true });
    cacheFile = join(dir, `${label}-${h.digest('hex').slice(0, 16)}.jsonl`);
    if (existsSync(cacheFile)) {
      try {
        // One envelope per line: a whole run's envelopes may exceed the longest string V8 makes.
        const cached = readLines(cacheFile).map((l) => JSON.parse(l) as SignedEnvelope);
        if (cached.length === items.length) return cached;
      } catch {
        /* re-sign */
      }
    }
  }
  const threads = Math.max(1, Math.min(availableParallelism(), items.length));
  const per = Math.ceil(items.length / threads);
  const tsxApi = import.meta.resolve('tsx/esm/api');
  // tsx does not register its loader in workers on Node 20: the worker registers it.
  const code =
    `import(${JSON.stringify(tsxApi)}).then(({ register }) => ` +
    `{ register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const shards = await Promise.all(
    Array.from({ length: threads }, (_, t) => {
      const shard = items.slice(t * per, (t + 1) * per);
      if (shard.length === 0) return Promise.resolve([] as SignedEnvelope[]);
      return new Promise<SignedEnvelope[]>((res, rej) => {
        const w = new Worker(code, {
          eval: true,
          workerData: { tag: WORKER_TAG, items: shard, network: opts.network },
        });
        w.once('message', (m: SignedEnvelope[]) => {
          res(m);
          void w.terminate();
        });
        w.once('error', rej);
        w.once('exit', (c) => rej(new Error(`signing worker exited with code ${c} before answering`)));
      });
    }),
  );
  const all = shards.flat();
  if (cacheFile) {
    const fd = openSync(cacheFile, 'w');
    for (const e of all) writeSync(fd, `${JSON.stringify(e)}\n`);
    closeSync(fd);
  }
  return all;
}

// A signing worker (started by signDevTxs) imports this module: sign its shard and answer.
if (!isMainThread && (workerData as { tag?: string } | null)?.tag === WORKER_TAG) {
  const d = workerData as { items: DevTxItem[]; network: Network };
  void signItems(d.items, d.network).then((m) => parentPort!.postMessage(m));
}
