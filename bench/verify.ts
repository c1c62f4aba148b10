/**
 * Hybrid (secp256k1 + ML-DSA-44) verification throughput: noble reference, the
 * in-thread fast verifier (OpenSSL + liboqs), and the worker pool.
 *   npx tsx bench/verify.ts [--jobs 1000] [--workers 2]
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { createFastVerifier } from '../src/crypto/fastVerify';
import { signHybrid, verifyHybridReference, type VerifyJob } from '../src/crypto/hybrid';
import { deriveKeys, devSecret } from '../src/crypto/keys';
import { VerifyPool } from '../src/crypto/verifyPool';
import { signingBytes } from '../src/crypto/txSigning';
import { DEV_NETWORK } from '../src/chain/devnet';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '1000' },
    workers: { type: 'string', default: String(availableParallelism()) },
  },
});
const JOBS = Number(values.jobs);
const WORKERS = Number(values.workers);
const KEYS = 16;

const keys = Array.from({ length: KEYS }, (_, i) => deriveKeys(devSecret(i, 'bench')));
// A realistic message: the signing bytes of a transfer (TX_DOMAIN, the genesis hash, a ~250-byte canonical payload).
const jobs: VerifyJob[] = Array.from({ length: JOBS }, (_, i) => {
  const k = keys[i % KEYS];
  const msg = signingBytes(
    {
      chainId: DEV_NETWORK.chainId,
      type: 'TRANSFER',
      from: k.address,
      to: '0xed1dbbcab08783344ec86f233f63fe2722147212',
      amount: String(i),
      nonce: i,
      timestamp: 1700000000000,
      fee: '1000',
      data: null,
    },
    DEV_NETWORK,
  );
  return { msg, pubs: { secp256k1: k.secp256k1.publicKey, mldsa44: k.mldsa44.publicKey }, sigs: signHybrid(k, msg) };
});

interface Row {
  name: string;
  n: number;
  ms: number;
}
const rows: Row[] = [];

async function measure(name: string, n: number, run: () => Promise<number> | number): Promise<void> {
  const t0 = performance.now();
  const ok = await run();
  const ms = performance.now() - t0;
  if (ok !== n) throw new Error(`${name}: ${ok}/${n} verified`);
  rows.push({ name, n, ms });
}

const count = (results: boolean[]): number => results.filter(Boolean).length;

const nobleN = Math.min(JOBS, 300);
await measure('noble (reference), 1 thread', nobleN, () =>
  count(jobs.slice(0, nobleN).map((j) => verifyHybridReference(j.msg, j.pubs, j.sigs))),
);

const fast = await createFastVerifier();
fast.verify(jobs[0].msg, jobs[0].pubs, jobs[0].sigs); // warm the WASM module
await measure('fastVerify, 1 thread, keys cached', JOBS, () =>
  count(jobs.map((j) => fast.verify(j.msg, j.pubs, j.sigs))),
);

const cold = await createFastVerifier({ keyCacheSize: 1 });
await measure('fastVerify, 1 thread, key import each call', JOBS, () =>
  count(jobs.map((j) => cold.verify(j.msg, j.pubs, j.sigs))),
);

const pool = await VerifyPool.start({ workers: WORKERS });
await pool.verifyMany(jobs.slice(0, 50)); // warm-up
await measure(`VerifyPool, ${WORKERS} workers, one verifyMany`, JOBS, async () => count(await pool.verifyMany(jobs)));
await measure(`VerifyPool, ${WORKERS} workers, blocks of 500`, JOBS, async () => {
  let ok = 0;
  for (let i = 0; i < JOBS; i += 500) ok += count(await pool.verifyMany(jobs.slice(i, i + 500)));
  return ok;
});
await measure(`VerifyPool, ${WORKERS} workers, single verify() calls, 64 concurrent`, JOBS, async () => {
  let ok = 0;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < JOBS) if (await pool.verify(jobs[next++])) ok++;
  };
  await Promise.all(Array.from({ length: 64 }, lane));
  return ok;
});
const stats = pool.stats();
await pool.close();

const base = rows[0].n / rows[0].ms;
console.log(`hybrid verify (secp256k1 + ML-DSA-44), ${JOBS} jobs, ${KEYS} keys, ${availableParallelism()} CPUs\n`);
console.log(`${'verifier'.padEnd(62)}${'verifies/s'.padStart(12)}${'vs noble'.padStart(10)}`);
for (const r of rows) {
  const perSec = (r.n / r.ms) * 1000;
  console.log(
    `${r.name.padEnd(62)}${perSec.toFixed(0).padStart(12)}${`${(r.n / r.ms / base).toFixed(1)}x`.padStart(10)}`,
  );
}
console.log(`\npool: ${stats.batches} batches, mean batch ${stats.meanBatchSize.toFixed(1)} jobs`);
