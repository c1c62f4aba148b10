import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { producerBehavior } from '../../../../src/actors/consensus/producerActor';
import { devNetworkGenesis } from '../../../../src/chain/devnet';
import { applyBlock } from '../../../../src/chain/replay';
import { headerHash, verifyHeader } from '../../../../src/crypto/blockHeader';
import { toHex } from '../../../../src/primitives/hex';
import { getSchedule } from '../../../../src/modules/staking';
import { writeGenesis } from '../../../../src/node/genesisSource';
import { StateTrie } from '../../../../src/state/stateTrie';
import { MemoryKv } from '../../../../src/state/kv';
import { ChainStore } from '../../../../src/storage/chainStore';
import { encodeStoredBlock } from '../../../../src/chain/blockCodec';

/**
 * A validator that must not vote (it voted for another checkpoint of this epoch, on a branch that lost) makes its
 * block all the same, marked `abstain`: signed as such, executed by every node with no vote counted. Before, it made
 * no block for the rest of the epoch; the simulator's seed 5073 (19 validators) then finalized nothing in 180 slots.
 */
describe('an abstaining block', () => {
  async function produce(
    voteRefused: string | undefined,
    refusal?: string,
    onUnsigned?: (h: number, r: string) => void,
  ) {
    const { spec, validators } = devNetworkGenesis(2, 4);
    const store = new ChainStore(new MemoryKv());
    const parent = await writeGenesis(store, spec);
    const network = await store.network();
    const recorded: unknown[] = [];
    const producer = producerBehavior({
      kv: store.kv,
      keys: validators[0],
      network,
      slotMs: 500,
      guard: {
        refusal: () => refusal,
        voteRefusal: () => voteRefused,
        record: async (...a) => void recorded.push(a),
        forgetAbove: async () => {},
      },
      log: pino({ level: 'silent' }),
      onUnsigned,
    });
    // The first slot that is validator 0's after genesis.
    const before = await getSchedule(await StateTrie.open(store.kv, parent.stateRoot));
    let slot = Math.floor(parent.timestamp / 500) + 1;
    while (before.active[slot % before.active.length] !== validators[0].address) slot++;
    const built = await producer.handle({
      type: 'build',
      parent,
      now: slot * 500,
      pending: [],
      vote: { target: { epoch: 1 }, source: 0 },
    });
    return { built: built!, store, parent, network, keys: validators[0] };
  }

  it("is made, says so in its signed header, and counts as nobody's vote on every node that executes it", async () => {
    const { built, store, parent, network, keys } = await produce('already voted for another checkpoint of epoch 1');
    const h = built.block.header;
    expect(h.abstain).toBe(true);
    // The flag is signed: the hash covers it, and the signatures verify over it.
    expect(headerHash(h)).toBe(h.hash);
    expect(headerHash({ ...h, abstain: undefined })).not.toBe(h.hash);
    const pubs = { secp256k1: toHex(keys.secp256k1.publicKey), mldsa44: toHex(keys.mldsa44.publicKey) };
    expect(verifyHeader(h, pubs)).toBeUndefined();
    // An importer executes it to the same state, and the schedule holds no vote of its producer.
    const state = await StateTrie.open(store.kv, parent.stateRoot);
    expect(await applyBlock(state, built.block, network, { nestedVerified: true })).toBeUndefined();
    const after = await getSchedule(state);
    expect(after.epochs?.votes ?? []).not.toContain(keys.address);
    expect(after.lastProduced[keys.address]).toBe(1); // it still counts as up (no downtime jailing)
    // It is stored as it came (the compact layout has no room for the flag: the block stays a JSON line).
    const stored = encodeStoredBlock(built.block);
    expect(Buffer.from(stored.bytes).toString('utf8')).toContain('"abstain":true');
  });

  it("a block that may vote has no flag, and its producer's vote is counted", async () => {
    const { built, store, parent, network, keys } = await produce(undefined);
    expect('abstain' in built.block.header).toBe(false);
    const state = await StateTrie.open(store.kv, parent.stateRoot);
    expect(await applyBlock(state, built.block, network, { nestedVerified: true })).toBeUndefined();
    expect((await getSchedule(state)).epochs?.votes).toContain(keys.address);
  });

  it('is not made at all when the double-sign protection refuses the height, and the simulator is told why', async () => {
    // After a heal, a validator whose slot on the adopted chain falls at a height it signed on the branch that lost
    // makes no block there: the simulator counts these slots (stats.unsignedAfterHeal).
    const told: [number, string][] = [];
    const { built } = await produce(undefined, 'already signed a block at height 57', (h, r) => told.push([h, r]));
    expect(built).toBeNull();
    expect(told).toEqual([[1, 'already signed a block at height 57']]);
  });
});
