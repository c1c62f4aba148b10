import { describe, expect, it } from 'vitest';
import { deriveKeys } from '../../src/crypto/keys';
import { loadInstance } from '../../src/machines/instance';
import { stateName } from '../../src/machines/record';
import { getPool, inboundDigest, memberOf, signAsMember, transferDef } from '../../src/modules/bridge';
import { COIN } from '../../src/primitives/amount';
import type { Hex } from '../../src/primitives/hex';
import { getCommittee } from '../../src/protocol/bridge';
import { EconWorld, U1, U2, U3, V0 } from '../helpers/econWorld';

const keys = [1, 2, 3].map((i) => deriveKeys(new Uint8Array(32).fill(i)));
const st = async (w: EconWorld, id: Hex) => stateName((await loadInstance(w.state, transferDef, id))!.value);
describe('bridge smoke', () => {
  it('committee by proposal, out, settle, in, breaker', async () => {
    const w = await EconWorld.create({ BRIDGE_WINDOW_BLOCKS: '10', BRIDGE_BREAKER_BPS: '1000' }, undefined, keys.map((k) => k.address));
    const prop = await w.tx('GOV_PROPOSE', U1, { amount: String(10n * COIN), data: { committee: { members: keys.map(memberOf), threshold: 2 } } });
    const [r] = await w.block([prop]);
    expect(r.error).toBeUndefined();
    await w.ok('GOV_VOTE', V0, { data: { proposalId: prop.id, vote: 'yes' } });
    await w.until(12);
    const c = await getCommittee(w.state);
    expect(c?.epoch).toBe(1);
    const out = await w.tx('BRIDGE_OUT', U2, { amount: String(1000n * COIN), data: { chain: 'ethereum', recipient: '0xabc' } });
    await w.block([out]);
    expect(await st(w, out.id)).toBe('LOCKED');
    await w.ok('BRIDGE_SETTLE', keys[0].address, { data: { transferId: out.id, targetTx: '0xdead' } });
    expect(await st(w, out.id)).toBe('PAID');
    const msg = { sourceChain: 'ethereum', sourceTx: '0x01', asset: 'native', to: U3, amount: String(50n * COIN) };
    const sigs = keys.slice(0, 2).map((k) => signAsMember(k, inboundDigest(msg)));
    const inn = await w.tx('BRIDGE_IN', U1, { data: { ...msg, signatures: sigs } });
    const before = (await w.account(U3)).balance;
    const [ri] = await w.block([inn]);
    expect(ri.error).toBeUndefined();
    expect(await st(w, inn.id)).toBe('RELEASED');
    expect((await w.account(U3)).balance - before).toBe(50n * COIN);
    await w.fails('BRIDGE_IN', U1, { data: { ...msg, signatures: sigs } }, `deposit ethereum:0x01 was already attested (transfer ${inn.id})`);
    // 2nd: over breaker (1000 coins locked → 95 left → 10% = 100 per window; 50 used)
    const msg2 = { ...msg, sourceTx: '0x02', amount: String(80n * COIN) };
    const inn2 = await w.tx('BRIDGE_IN', U1, { data: { ...msg2, signatures: keys.slice(1).map((k) => signAsMember(k, inboundDigest(msg2))) } });
    await w.block([inn2]);
    expect(await st(w, inn2.id)).toBe('DELAYED');
    const ctx = (await loadInstance(w.state, transferDef, inn2.id))!.context;
    expect(ctx.releaseAt).toBe(Math.ceil((w.height + 1) / 10) * 10);
    await w.until(ctx.releaseAt!);
    expect(await st(w, inn2.id)).toBe('RELEASED');
    const pool = await getPool(w.state, 'native');
    expect(pool).toMatchObject({ locked: String(870n * COIN), reserved: '0' });
    // forged: one sig only
    const msg3 = { ...msg, sourceTx: '0x03' };
    await w.fails('BRIDGE_IN', U1, { data: { ...msg3, signatures: [signAsMember(keys[0], inboundDigest(msg3)), signAsMember(keys[0], inboundDigest(msg3))] } }, 'BRIDGE_IN: 1 valid member signatures of 2 needed (committee epoch 1; both secp256k1 and ML-DSA-44 halves of each)');
  });
});
