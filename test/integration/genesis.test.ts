import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, toHex } from '../../src/primitives/hex';
import { CHAIN_ID } from '../../src/protocol/params';
import { spawnNode, type ChildNode } from '../helpers/childNode';
import { waitUntil } from '../helpers/testNode';

/**
 * `cairn node --genesis <file> --validator-key <file>` in its own process: a chain from a
 * specification (its own validator, accounts and parameters), kept by the data directory,
 * which refuses another specification and a key that is not its validator's.
 */
const SECRET = '44'.repeat(32);
const V = deriveKeys(fromHex(SECRET));
const A = '0x00000000000000000000000000000000000000a1';

let dir: string;
let node: ChildNode | undefined;
const file = (name: string) => join(dir, name);
const spec = (params: Record<string, string>) => ({
  chainId: CHAIN_ID,
  timestamp: 1_780_000_000_000, // in the past: the first block comes after the genesis time
  accounts: [
    {
      address: V.address,
      balance: String(50n * COIN),
      staked: String(2_000n * COIN),
      isValidator: true,
      commissionBps: 300,
      signingKeys: { secp256k1: toHex(V.secp256k1.publicKey), mldsa44: toHex(V.mldsa44.publicKey) },
    },
    { address: A, balance: String(777n * COIN) },
  ],
  params,
});
const get = async (path: string) => (await fetch(`${node!.url}${path}`)).json() as Promise<any>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-genesis-'));
  await writeFile(file('genesis.json'), JSON.stringify(spec({ GOV_VOTING_BLOCKS: '7', EPOCH_BLOCKS: '5' })));
  await writeFile(file('other.json'), JSON.stringify(spec({ GOV_VOTING_BLOCKS: '8', EPOCH_BLOCKS: '5' })));
  await writeFile(file('validator.json'), JSON.stringify([{ secret: SECRET }]), { mode: 0o600 });
});
afterAll(async () => {
  await node?.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

const args = (genesis: string, key = 'validator.json') => [
  '--genesis',
  file(genesis),
  '--validator-key',
  file(key),
  '--idle-block-ms',
  '100',
  '--slot-ms',
  '100',
];

describe('cairn node --genesis', () => {
  it('starts a chain from the specification: its validator produces, its accounts and parameters hold', async () => {
    node = await spawnNode(file('data'), args('genesis.json'));
    await waitUntil(async () => (await get('/status')).height >= 3);
    const v = await get('/validators');
    expect(v.active.map((x: { address: string }) => x.address)).toEqual([V.address]);
    expect(v.active[0]).toMatchObject({ commissionBps: 300, stake: String(2_000n * COIN) });
    expect(v.epochBlocks).toBe(5);
    const g = await get('/governance');
    expect(g.params.find((p: { name: string }) => p.name === 'GOV_VOTING_BLOCKS')).toMatchObject({
      value: '7',
      changedAt: null,
    });
    expect((await get(`/address/${A}`)).balance).toBe(String(777n * COIN));
    const b1 = await get('/blocks/1');
    expect(b1.producer ?? b1.header?.producer).toBe(V.address);
    // Not the development network: no development keys are written.
    await expect(access(join(file('data'), 'dev-accounts.json'))).rejects.toThrow();
    expect(await node.kill('SIGTERM')).toBe(0);
  });

  it('restarts with the same file or none; refuses another specification; without its key it follows', async () => {
    node = await spawnNode(file('data'), args('genesis.json'));
    const h = (await get('/status')).height;
    expect(h).toBeGreaterThanOrEqual(3);
    expect(await node.kill('SIGTERM')).toBe(0);
    node = await spawnNode(file('data'), ['--validator-key', file('validator.json')]);
    expect((await get('/status')).height).toBeGreaterThanOrEqual(h);
    expect(await node.kill('SIGTERM')).toBe(0);
    node = undefined;

    await expect(spawnNode(file('data'), args('other.json'))).rejects.toThrow(
      /is not the chain specification the chain in .* was created from/,
    );
    // Without its validator key the node follows the chain it holds: it serves it and produces nothing.
    node = await spawnNode(file('data'), []);
    const followed = (await get('/status')).height;
    await new Promise((r) => setTimeout(r, 600));
    expect((await get('/status')).height).toBe(followed);
    expect(node.output()).toMatch(/not in the active set .*no --validator-key/);
    expect(await node.kill('SIGTERM')).toBe(0);
    node = undefined;
    await writeFile(file('bad.json'), JSON.stringify(spec({ MAX_VALIDATORS: '0' })));
    await expect(spawnNode(file('empty'), args('bad.json'))).rejects.toThrow(
      /--genesis .*bad\.json: \$\.params\.MAX_VALIDATORS: MAX_VALIDATORS must be from 1 to 101/,
    );
  });
});
