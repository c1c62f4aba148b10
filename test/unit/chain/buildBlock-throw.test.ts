import { describe, expect, it } from 'vitest';
import { INTERNAL_ERROR, buildBlock } from '../../../src/chain/buildBlock';
import { devAccounts, devGenesis, DEV_NETWORK } from '../../../src/chain/devnet';
import { signTx } from '../../../src/chain/envelope';
import { applyGenesis } from '../../../src/chain/genesis';
import { orderedCandidates } from '../../../src/mempool/senderHeap';
import type { ExecState } from '../../../src/protocol/execState';
import type { Address } from '../../../src/protocol/types';
import { MemoryKv } from '../../../src/state/kv';
import { StateTrie } from '../../../src/state/stateTrie';

/**
 * A transaction that makes execution throw something that is not a transaction outcome (a
 * bug it triggers: here a read of its recipient fails with a TypeError) used to throw out of
 * buildBlock: the producer failed every slot while it sat in the mempool. Now it is left
 * out of the block with every effect undone (its sender's nonce too) and dropped with the
 * error, and the block carries the others.
 */
describe('buildBlock: a transaction whose execution throws', () => {
  it('is left out and dropped, its effects undone; the rest of the block is built as without it', async () => {
    const { spec, validator } = devGenesis(3);
    const kv = new MemoryKv();
    const genesisState = await StateTrie.open(kv, null);
    await applyGenesis(genesisState, spec);
    const [a, b, c] = devAccounts(3).map((d) => d.keys);
    const poison = '0x00000000000000000000000000000000000000bd' as Address;
    const transfer = (k: typeof a, to: Address, timestamp: number) =>
      signTx(k, { type: 'TRANSFER', to, amount: '5', fee: '1000', nonce: 0, timestamp, data: null }, DEV_NETWORK);
    const good1 = transfer(a, c.address, 1_000);
    const bad = transfer(b, poison, 1_001);
    const good2 = transfer(c, a.address, 1_002);

    // The same state, except that reading the poison account throws.
    const base = genesisState;
    const trap: ExecState = new Proxy(base, {
      get(target, prop, receiver) {
        if (prop === 'getAccount')
          return async (addr: Address) => {
            if (addr === poison) throw new TypeError('a bug this transaction triggers');
            return target.getAccount(addr);
          };
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const before = base.root();
    const ctx = {
      height: 1,
      timestamp: spec.timestamp + 1_000,
      producer: validator.address,
      network: DEV_NETWORK,
      maxTxs: 500,
    };
    const built = await buildBlock(trap, orderedCandidates([[good1], [bad], [good2]]), ctx);
    expect(built.txs.map((t) => t.id)).toEqual([good1.id, good2.id]);
    expect(built.dropped).toHaveLength(1);
    expect(built.dropped[0]).toMatchObject({ id: bad.id, reason: INTERNAL_ERROR });
    expect(built.dropped[0].internal).toContain('a bug this transaction triggers');
    expect((await base.getAccount(b.address))!.nonce).toBe(0); // its nonce increment was undone

    // The block is the block built without the transaction at all.
    const kv2 = new MemoryKv();
    const plain = await StateTrie.open(kv2, null);
    await applyGenesis(plain, spec);
    expect(plain.root()).toBe(before);
    const without = await buildBlock(plain, orderedCandidates([[good1], [good2]]), ctx);
    expect(without.txs.map((t) => t.id)).toEqual([good1.id, good2.id]);
    expect(plain.root()).toBe(base.root());
  });
});
