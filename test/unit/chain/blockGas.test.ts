import { describe, expect, it } from 'vitest';
import { importerBehavior } from '../../../src/actors/consensus/importer';
import { sealBlock } from '../../../src/chain/block';
import { buildBlock } from '../../../src/chain/buildBlock';
import { devAccounts, devGenesis, DEV_NETWORK } from '../../../src/chain/devnet';
import { signTx } from '../../../src/chain/envelope';
import { applyGenesis } from '../../../src/chain/genesis';
import { orderedCandidates } from '../../../src/mempool/senderHeap';
import { VM_MAX_GAS } from '../../../src/protocol/params';
import type { SignedTx } from '../../../src/protocol/types';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';
import { commitState } from '../../helpers/memChain';
import { realVerifier } from '../../helpers/verifier';

/**
 * The dev chain at genesis (BLOCK_GAS_LIMIT at its default, VM_MAX_GAS) and looping deployments from two dev accounts.
 */
async function setup() {
  const { spec, validator } = devGenesis(2);
  const kv = new MemoryKv();
  const state = await StateTrie.open(kv, null);
  const genesis = await applyGenesis(state, spec);
  const stateRoot = await commitState(kv, state);
  const parent = { height: 0, hash: genesis.header.hash, stateRoot, finalizedHeight: 0, timestamp: spec.timestamp };
  const [a, b] = devAccounts(2).map((d) => d.keys);
  // Timestamps fix the candidates' order across senders (the mempool's: by nonce, then timestamp).
  const deploy = (k: typeof a, nonce: number, gasLimit = Number(VM_MAX_GAS), timestamp = 1_000 + nonce) =>
    signTx(
      k,
      {
        type: 'VM_DEPLOY',
        to: null,
        amount: '0',
        fee: '100000',
        nonce,
        timestamp,
        data: { input: '0x5b600056', gasLimit },
      },
      DEV_NETWORK,
    );
  return { kv, parent, validator, a, b, deploy };
}

describe('block gas budget (BLOCK_GAS_LIMIT)', () => {
  it(
    'an importer refuses a block whose VM transactions ' + 'declare more gas than the limit, before executing it',
    async () => {
      const { kv, parent, validator, a, b, deploy } = await setup();
      const txs: SignedTx[] = [deploy(a, 0), deploy(b, 0)]; // 2 × 5,190,000 over a 5,190,000 budget
      const timestamp = parent.timestamp + 1_000;
      const results = txs.map(() => ({ status: 'failed' as const, error: 'out of gas', energyUsed: '0', burned: '0' }));
      const block = sealBlock(validator, {
        parent,
        timestamp,
        producer: validator.address,
        stateRoot: parent.stateRoot,
        txs,
        results,
        events: [],
      });
      const importer = importerBehavior({
        kv,
        verifier: realVerifier,
        slotMs: 500,
        network: DEV_NETWORK,
      });
      const verdict = await importer.handle({ type: 'execute', block, parent, now: timestamp });
      expect(verdict).toMatchObject({
        refused:
          `block gas ${2n * VM_MAX_GAS} exceeds BLOCK_GAS_LIMIT ${VM_MAX_GAS} ` +
          `(the sum of its VM transactions' gas limits)`,
      });

      // The same block with one of them is not refused for its gas (it gets as far as execution).
      const one = sealBlock(validator, {
        parent,
        timestamp,
        producer: validator.address,
        stateRoot: parent.stateRoot,
        txs: txs.slice(0, 1),
        results: results.slice(0, 1),
        events: [],
      });
      const v1 = await importer.handle({ type: 'execute', block: one, parent, now: timestamp });
      expect('refused' in v1 ? v1.refused : '').not.toMatch(/BLOCK_GAS_LIMIT/);
    },
  );

  it(
    'the producer stops adding VM transactions at the limit and leaves the rest ' + '(and non-VM ones still fit)',
    async () => {
      const { kv, parent, validator, a, b, deploy } = await setup();
      const small = deploy(b, 0, 100_000, 5_000);
      const transfer = signTx(
        b,
        { type: 'TRANSFER', to: a.address, amount: '1', fee: '1000', nonce: 1, timestamp: 5_001, data: null },
        DEV_NETWORK,
      );
      const state = await StateTrie.open(kv, parent.stateRoot);
      const ctx = { producer: validator.address, network: DEV_NETWORK, maxTxs: 500 };
      const built = await buildBlock(
        state,
        orderedCandidates([
          [deploy(a, 0), deploy(a, 1)],
          [small, transfer],
        ]),
        { ...ctx, height: 1, timestamp: parent.timestamp + 1_000 },
      );
      // a's first deployment fills the budget: a's second and b's (small) deployment wait, and so does b's transfer
      // behind it.
      expect(built.txs.map((t) => t.id)).toEqual([deploy(a, 0).id]);
      expect(built.dropped).toEqual([]);
      // The next block takes what waited: b's small deployment and transfer first (nonce 0 before a's nonce 1), then
      // a's
      // does not fit.
      const next = await buildBlock(state, orderedCandidates([[deploy(a, 1)], [small, transfer]]), {
        ...ctx,
        height: 2,
        timestamp: parent.timestamp + 2_000,
      });
      expect(next.txs.map((t) => t.id)).toEqual([small.id, transfer.id]);
    },
  );
});
