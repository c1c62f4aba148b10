// Worker thread of VerifyPool. Plain JS so it runs under node, tsx and vitest alike.
// Protocol (see verifyPool.ts): in  { id, count, buf } where buf packs `count` jobs as
// 5*count uint32 lengths then the bytes of msg, pub secp, pub mldsa, sig secp, sig mldsa
// per job; out { id, results: Uint8Array } with 1 = valid. After init: { type: 'ready' }.
import { parentPort } from 'node:worker_threads';
import { createVerifyCore } from './verifyCore.mjs';

const core = await createVerifyCore();

parentPort.on('message', (m) => {
  const { id, count, buf } = m;
  const lengths = new Uint32Array(buf, 0, count * 5);
  const results = new Uint8Array(count);
  let off = count * 20;
  const next = (k) => {
    const v = new Uint8Array(buf, off, lengths[k]);
    off += lengths[k];
    return v;
  };
  for (let i = 0; i < count; i++) {
    const msg = next(i * 5);
    const pubs = { secp256k1: next(i * 5 + 1), mldsa44: next(i * 5 + 2) };
    const sigs = { secp256k1: next(i * 5 + 3), mldsa44: next(i * 5 + 4) };
    results[i] = core.verify(msg, pubs, sigs) ? 1 : 0;
  }
  parentPort.postMessage({ id, results }, [results.buffer]);
});

parentPort.postMessage({ type: 'ready' });
