/**
 * Stateless validation (the registry's rules; admission runs them on every POST /tx): µs per
 * transaction of a few representative types, after a warm-up. Usage: npx tsx bench/validate.ts [--runs 20000]
 */
import { handlerFor } from '../src/modules/registry';
import type { TxType } from '../src/protocol/types';
import { ALICE, BOB, envelope } from '../test/helpers/assetHarness';

const i = process.argv.indexOf('--runs');
const RUNS = i > 0 ? Number(process.argv[i + 1]) : 20_000;
const cases: [TxType, Parameters<typeof envelope>[2]][] = [
  ['TRANSFER', { to: BOB, amount: '5' }],
  ['TOKEN_TRANSFER', { to: BOB, data: { token: `0x${'11'.repeat(20)}`, amount: '12345' } }],
  ['TOKEN_CREATE', { data: { name: 'Cairn Dollar', symbol: 'CUSD', decimals: 6, supply: '1000000', mintable: true } }],
  ['NFT_MINT', { to: BOB, data: { collection: `0x${'22'.repeat(20)}`, uri: 'ipfs://x' } }],
  ['STAKE', { amount: '5000000', data: { candidate: true, commission: 500 } }],
  ['VOTE', { data: { votes: { [BOB]: '6', [`0x${'33'.repeat(20)}`]: '4' } } }],
  ['GOV_PROPOSE', { amount: '100000000', data: { param: 'MAX_VALIDATORS', value: '25' } }],
];
for (const [type, opts] of cases) {
  const tx = envelope(type, ALICE, opts);
  const h = handlerFor(type)!;
  const refused = h.validate(tx);
  if (refused !== undefined) throw new Error(`${type} refused: ${refused}`);
  for (let n = 0; n < RUNS; n++) h.validate(tx); // warm up
  const t0 = process.hrtime.bigint();
  for (let n = 0; n < RUNS; n++) h.validate(tx);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / RUNS;
  console.log(`${type.padEnd(16)} ${us.toFixed(2)} µs`);
}
