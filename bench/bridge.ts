/**
 * What a bridge committee costs a node: the quorum check of BRIDGE_IN (threshold hybrid
 * verifications with noble, the reference verifier) and its stateless validation (the
 * signature list's shape), by committee size; and the worst case a relayer can send, a full
 * list of bad signatures, which checks at most one per member.
 * Usage: npx tsx bench/bridge.ts [--runs 20]
 */
import { deriveKeys } from '../src/crypto/keys';
import { inboundDigest, memberOf, quorumRefusal, signAsMember } from '../src/modules/bridge';
import { handlerFor } from '../src/modules/registry';
import type { CommitteeRecord } from '../src/protocol/bridge';
import { ALICE, BOB, envelope } from '../test/helpers/assetHarness';

const i = process.argv.indexOf('--runs');
const RUNS = i > 0 ? Number(process.argv[i + 1]) : 20;
const time = (f: () => unknown): number => {
  f();
  const t0 = process.hrtime.bigint();
  for (let n = 0; n < RUNS; n++) f();
  return Number(process.hrtime.bigint() - t0) / 1e6 / RUNS;
};
const msg = { sourceChain: 'ethereum', sourceTx: '0x01', asset: 'native', to: BOB, amount: '5000000' };
const digest = inboundDigest(msg);
for (const [n, k] of [
  [3, 2],
  [5, 3],
  [7, 5],
  [7, 7],
] as const) {
  const keys = Array.from({ length: n }, (_, j) => deriveKeys(new Uint8Array(32).fill(j + 1)));
  const committee: CommitteeRecord = {
    epoch: 1,
    members: keys.map(memberOf).sort((a, b) => (a.address < b.address ? -1 : 1)),
    threshold: k,
    since: 1,
  };
  const sigs = keys.slice(0, k).map((x) => signAsMember(x, digest));
  if (quorumRefusal(committee, digest, sigs, 'bench')) throw new Error('quorum refused');
  const tx = envelope('BRIDGE_IN', ALICE, { data: { ...msg, signatures: sigs } });
  const validate = time(() => handlerFor('BRIDGE_IN')!.validate(tx));
  const quorum = time(() => quorumRefusal(committee, digest, sigs, 'bench'));
  const bad = Array.from({ length: 16 }, (_, j) => ({ ...sigs[j % k], mldsa44: sigs[(j + 1) % k].mldsa44 }));
  const worst = time(() => quorumRefusal(committee, digest, bad, 'bench'));
  const bytes = JSON.stringify(tx.data).length;
  console.log(
    `${k} of ${n}: data ${bytes} bytes; validate ${validate.toFixed(2)} ms; quorum ${quorum.toFixed(1)} ms; ` +
      `16 bad signatures ${worst.toFixed(1)} ms`,
  );
}
