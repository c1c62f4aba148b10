import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope, signTx } from '../../src/chain/envelope';
import { deriveKeys } from '../../src/crypto/keys';
import { MACHINE_LIST } from '../../src/modules/machines';
import {
  machinesSection,
  paramsSection,
  typesSection,
  withMachinesSection,
  withParamsSection,
  withTypesSection,
} from '../../src/modules/docs';
import { DEV_PARAMS } from '../../src/chain/devnet';
import { ENTRIES, entryOf, handlerFor, isImplemented, REGISTRY, TX_TYPES } from '../../src/modules/registry';
import { fromHex } from '../../src/primitives/hex';
import { TX_TYPE_CATALOGUE } from '../../src/protocol/types';
import { ALICE, BOB, ENERGY_COST, envelope, validate } from '../helpers/assetHarness';
import { DEV_NETWORK } from '../../src/chain/devnet';

describe('the registry', () => {
  it('is keyed by each entry’s type; TX_TYPES is its keys, all in the 58-name catalogue', () => {
    expect(TX_TYPE_CATALOGUE).toHaveLength(58);
    expect(new Set(TX_TYPE_CATALOGUE).size).toBe(58);
    expect(TX_TYPES).toEqual(Object.keys(REGISTRY));
    expect(TX_TYPES).toHaveLength(58);
    for (const [type, entry] of Object.entries(REGISTRY)) {
      expect(entry.type).toBe(type);
      expect(entry.handler.type).toBe(type);
      expect(TX_TYPE_CATALOGUE).toContain(type);
      expect(handlerFor(entry.type)).toBe(entry.handler);
    }
    for (const type of TX_TYPE_CATALOGUE.filter((t) => !(t in REGISTRY))) {
      expect(isImplemented(type)).toBe(false);
      expect(entryOf(type)).toBeUndefined();
      expect(handlerFor(type)).toBeUndefined();
    }
    expect(isImplemented('NOPE')).toBe(false);
  });

  it('keeps every fixed energy cost, and VM energy is the gas limit ÷ 100 rounded up', () => {
    for (const e of ENTRIES) {
      if (typeof e.energy === 'bigint')
        expect(e.handler.maxEnergy(envelope(e.type, ALICE)), e.type).toBe(ENERGY_COST[e.type]);
    }
    const call = envelope('VM_CALL', ALICE, { to: BOB, data: { input: '0x', gasLimit: 21_001 } });
    expect(REGISTRY.VM_CALL.handler.maxEnergy(call)).toBe(211n);
  });

  it('the envelope decoder accepts exactly the implemented types, with today’s refusal', () => {
    const keys = deriveKeys(fromHex('44'.repeat(32)));
    for (const type of TX_TYPES) {
      const tx = signTx(keys, { type, nonce: 0, timestamp: 1 }, DEV_NETWORK);
      expect(decodeEnvelope(JSON.parse(JSON.stringify(tx)), DEV_NETWORK).ok, type).toBe(true);
    }
    const base = JSON.parse(
      JSON.stringify(signTx(keys, { type: 'TRANSFER', to: BOB, amount: 1n, nonce: 0 }, DEV_NETWORK)),
    );
    for (const type of [...TX_TYPE_CATALOGUE.filter((t) => !(t in REGISTRY)), 'transfer', 'NOPE', 5]) {
      expect(decodeEnvelope({ ...base, type, id: undefined }, DEV_NETWORK)).toEqual({
        ok: false,
        error: 'unknown transaction type',
      });
    }
  });

  it('validates the representative types (their speed: npx tsx bench/validate.ts)', () => {
    const txs = [
      envelope('TOKEN_TRANSFER', ALICE, { to: BOB, data: { token: `0x${'11'.repeat(20)}`, amount: '12345' } }),
      envelope('TOKEN_CREATE', ALICE, {
        data: { name: 'Cairn Dollar', symbol: 'CUSD', decimals: 6, supply: '1000000', mintable: true },
      }),
      envelope('NFT_MINT', ALICE, { to: BOB, data: { collection: `0x${'22'.repeat(20)}`, uri: 'ipfs://x' } }),
      envelope('TRANSFER', ALICE, { to: BOB, amount: '5' }),
    ];
    for (const tx of txs) expect(validate(tx)).toBeUndefined();
  });
});

describe('docs/PROTOCOL.md', () => {
  it('has the types section the registry generates (run `npm run docs:types` after changing an entry)', () => {
    const doc = readFileSync(new URL('../../docs/PROTOCOL.md', import.meta.url), 'utf8');
    expect(withTypesSection(doc, typesSection(ENTRIES))).toBe(doc);
    expect(withParamsSection(doc, paramsSection(DEV_PARAMS))).toBe(doc);
    expect(withMachinesSection(doc, machinesSection(MACHINE_LIST))).toBe(doc);
  });
});

describe('the SDK stays light', () => {
  it('imports no EVM, storage, actors or api code (except the view types another change moves)', () => {
    const out = execFileSync(
      'npx',
      ['depcruise', 'src/sdk/index.ts', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
      { encoding: 'utf8', maxBuffer: 64 << 20 },
    );
    const { modules } = JSON.parse(out) as { modules: { source: string; dependencies: { resolved: string }[] }[] };
    const deps = new Map(modules.map((m) => [m.source, m.dependencies.map((d) => d.resolved)]));
    // Reachable from the SDK's entry point, not following the type-only import of the server's
    // view types (src/sdk/assets.ts → src/api/assetReader.ts), which the view-types change removes.
    const seen = new Set<string>();
    const stack = ['src/sdk/index.ts'];
    while (stack.length > 0) {
      const m = stack.pop()!;
      if (seen.has(m)) continue;
      seen.add(m);
      for (const d of deps.get(m) ?? [])
        if (!(m === 'src/sdk/assets.ts' && d === 'src/api/assetReader.ts')) stack.push(d);
    }
    expect([...seen].filter((m) => /^src\/(vm|storage|actors|api|node)\//.test(m))).toEqual([]);
    expect(seen.has('src/modules/registry.ts')).toBe(true);
  }, 60_000);
});

describe('the VM entries', () => {
  it('run through ExecContext.vm for both envelopes (an Ethereum-born transaction has no data object)', async () => {
    const seen: string[] = [];
    const vm = {
      execute: async (c: { tx: { envelope?: string; type: string } }) => (
        seen.push(`${c.tx.type}/${c.tx.envelope ?? 'hybrid'}`), { energy: 7n }
      ),
    };
    const hybrid = envelope('VM_CALL', ALICE, { to: BOB, data: { input: '0x', gasLimit: 21_000 } });
    const eth = {
      ...envelope('VM_TRANSFER', ALICE, { to: BOB, amount: '1' }),
      envelope: 'eth',
      data: null,
      gasLimit: '21000',
    } as unknown as typeof hybrid;
    expect(validate(eth)).toBeUndefined();
    const ctx = { state: {} as never, height: 1, timestamp: 1, producer: BOB, sender: ALICE, network: DEV_NETWORK, vm };
    expect(await REGISTRY.VM_CALL.handler.execute({ ...ctx, tx: hybrid })).toEqual({ energy: 7n });
    expect(await REGISTRY.VM_TRANSFER.handler.execute({ ...ctx, tx: eth })).toEqual({ energy: 7n });
    expect(seen).toEqual(['VM_CALL/hybrid', 'VM_TRANSFER/eth']);
  });
});
