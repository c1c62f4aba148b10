import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_GENESIS_TIMESTAMP, DEV_PARAMS } from '../../src/chain/devnet';
import { deriveKeys, devSecret } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { toHex } from '../../src/primitives/hex';
import { CairnClient } from '../../src/sdk/client';
import { ATTACKER, HONEST, requestFrom, rpcFrom, spawnTarget, waitFor, type Target } from './lib';

/**
 * Row 8 of issue 23: a transaction included on one Cairn chain, POSTed to another, must be
 * refused there. Native envelopes sign the genesis hash, so another genesis with the same
 * chain id refuses them as `invalid signature`; an Ethereum envelope is bound by its EIP-155
 * chain id only, so a network of its own has a chain id of its own (`cairn genesis template`
 * writes a fresh one), and refuses another's. Real node processes; the attacker replays from
 * its own loopback address, honest users sign with the SDK, which learns each node's chain.
 */
const VALIDATOR_SECRET = '5a'.repeat(32);
const V = deriveKeys(Buffer.from(VALIDATOR_SECRET, 'hex'));
const SENDER = deriveKeys(devSecret(0)); // funded on every chain below
const DEST = '0x00000000000000000000000000000000000000d8';
const ethSender = () => new Wallet(toHex(SENDER.secp256k1.privateKey));

const execFileP = promisify(execFile);
const cli = async (args: string[]): Promise<string> =>
  (await execFileP(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args])).stdout;

let dir: string;
const targets: Target[] = [];
const start = async (extra: string[], dev: boolean): Promise<Target> => {
  const t = await spawnTarget([...extra, '--slot-ms', '200', '--idle-block-ms', '400'], { dev });
  targets.push(t);
  return t;
};
let dev: Target; // the development network (chain id 72020), shared by both cases
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-cross-'));
  await writeFile(join(dir, 'validator.json'), JSON.stringify({ secret: VALIDATOR_SECRET }), { mode: 0o600 });
  dev = await start([], true);
}, 120_000);
afterAll(async () => {
  await Promise.all(targets.map((t) => t.cleanup()));
  await rm(dir, { recursive: true, force: true });
});

const balance = async (t: Target, addr: string): Promise<bigint> => {
  const r = await requestFrom(HONEST, `${t.url}/address/${addr}`);
  return r.status === 404 ? 0n : BigInt(r.json.balance);
};
const status = async (t: Target) => (await requestFrom(HONEST, `${t.url}/status`)).json;
/** The signed envelope of an included transaction, as anyone reads it (GET /tx/:id, once its block is in). */
async function includedEnvelope(t: Target, id: string): Promise<Record<string, unknown>> {
  const rec = await waitFor(`${id} included`, async () => {
    const r = await requestFrom(HONEST, `${t.url}/tx/${id}`);
    return r.status === 200 && typeof r.json.blockHeight === 'number' ? r.json : undefined;
  });
  // Without the record's extras (status, native addresses…): what POST /tx takes.
  return Object.fromEntries(ENVELOPE_KEYS.filter((k) => k in rec).map((k) => [k, rec[k]]));
}
const ENVELOPE_KEYS = [
  'id',
  'chainId',
  'type',
  'from',
  'to',
  'amount',
  'nonce',
  'timestamp',
  'fee',
  'data',
  'publicKeys',
  'signatures',
];

describe('a native transaction of one chain on another with the same chain id', () => {
  let twin: Target;
  beforeAll(async () => {
    // The twin differs from the development network in its genesis only (its own validator, one
    // more funded account), not in its chain id: the same sender holds coins on both.
    const spec = {
      chainId: 72020,
      timestamp: DEV_GENESIS_TIMESTAMP,
      params: DEV_PARAMS,
      accounts: [
        { address: SENDER.address, balance: String(10_000_000n * COIN) },
        { address: '0x00000000000000000000000000000000000000c7', balance: '1' },
        {
          address: V.address,
          balance: '0',
          staked: String(1_000_000n * COIN),
          isValidator: true,
          signingKeys: { secp256k1: toHex(V.secp256k1.publicKey), mldsa44: toHex(V.mldsa44.publicKey) },
        },
      ],
    };
    await writeFile(join(dir, 'twin.json'), JSON.stringify(spec));
    twin = await start(['--genesis', join(dir, 'twin.json'), '--validator-key', join(dir, 'validator.json')], false);
  }, 120_000);

  it('is refused as `invalid signature` and moves nothing; ' +
    'the same transfer signed for the chain is accepted', async () => {
    expect((await status(dev)).chainId).toBe((await status(twin)).chainId);
    expect((await status(dev)).genesisHash).not.toBe((await status(twin)).genesisHash);

    // An honest transfer on the development network, included there.
    const sent = await new CairnClient(dev.url).send(SENDER, {
      type: 'TRANSFER',
      to: DEST,
      amount: 777n,
      fee: String(COIN),
    });
    expect(sent.verdict).toMatchObject({ accepted: true });
    const envelope = await includedEnvelope(dev, sent.tx.id);
    expect(await balance(dev, DEST)).toBe(777n);

    // The attacker replays it on the twin: same sender, same nonce, same chain id.
    const replay = await requestFrom(ATTACKER, `${twin.url}/tx`, { body: envelope });
    expect(replay.json).toMatchObject({ accepted: false, reason: 'invalid signature' });
    // A few of the twin's blocks later, nothing moved and the twin has never heard of it.
    const h = (await status(twin)).height;
    await waitFor('two twin blocks', async () => (await status(twin)).height >= h + 2);
    expect(await balance(twin, DEST)).toBe(0n);
    expect((await requestFrom(HONEST, `${twin.url}/tx/${sent.tx.id}`)).status).toBe(404);

    // And the other way: a transfer of the twin is refused on the development network.
    const there = await new CairnClient(twin.url).send(SENDER, {
      type: 'TRANSFER',
      to: DEST,
      amount: 5n,
      fee: String(COIN),
      nonce: 0,
    });
    expect(there.verdict).toMatchObject({ accepted: true });
    const back = await requestFrom(ATTACKER, `${dev.url}/tx`, { body: await includedEnvelope(twin, there.tx.id) });
    expect(back.json).toMatchObject({ accepted: false, reason: 'invalid signature' });
    expect(await balance(twin, DEST)).toBe(5n);
    expect(await balance(dev, DEST)).toBe(777n);
  }, 90_000);
});

describe('an Ethereum transaction of one chain on a network with its own chain id', () => {
  let own: Target;
  let ownChainId: number;
  beforeAll(async () => {
    // The operator's way: a template (a fresh chain id, no validators), one validator entry added.
    const spec = JSON.parse(await cli(['genesis', 'template', '--dev-accounts', '1']));
    spec.accounts.push(JSON.parse(await cli(['genesis', 'validator', '--secret', VALIDATOR_SECRET])));
    ownChainId = spec.chainId;
    await writeFile(join(dir, 'own.json'), JSON.stringify(spec));
    own = await start(['--genesis', join(dir, 'own.json'), '--validator-key', join(dir, 'validator.json')], false);
  }, 120_000);

  it('is refused with the chain id; one signed for the network is accepted', async () => {
    expect(ownChainId).not.toBe(72020);
    expect((await rpcFrom(HONEST, own.rpcUrl, 'eth_chainId')).result).toBe(`0x${ownChainId.toString(16)}`);
    expect((await rpcFrom(HONEST, own.rpcUrl, 'net_version')).result).toBe(String(ownChainId));
    expect((await rpcFrom(HONEST, dev.rpcUrl, 'eth_chainId')).result).toBe('0x11954');

    const tx = { to: DEST, value: 10n ** 15n, nonce: 0, gasLimit: 21_000n, gasPrice: 10n ** 10n };
    const devNonce = Number(
      (await rpcFrom(HONEST, dev.rpcUrl, 'eth_getTransactionCount', [SENDER.address, 'pending'])).result,
    );
    const raw = await ethSender().signTransaction({ ...tx, nonce: devNonce, chainId: 72020n, type: 0 });
    const hash = (await rpcFrom(HONEST, dev.rpcUrl, 'eth_sendRawTransaction', [raw])).result;
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    await includedEnvelope(dev, hash);

    const replay = await rpcFrom(ATTACKER, own.rpcUrl, 'eth_sendRawTransaction', [raw]);
    expect(replay.error?.message).toBe(`wrong chain id: this node is chain ${ownChainId}`);
    const viaHttp = await requestFrom(ATTACKER, `${own.url}/vm/tx`, { body: { raw } });
    expect(viaHttp.status).toBe(400);
    expect(await balance(own, DEST)).toBe(0n);

    const mine = await ethSender().signTransaction({
      ...tx,
      chainId: BigInt(ownChainId),
      type: 2,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 0n,
      gasPrice: undefined,
    });
    const ok = await rpcFrom(HONEST, own.rpcUrl, 'eth_sendRawTransaction', [mine]);
    expect(ok.result).toMatch(/^0x[0-9a-f]{64}$/);
    await includedEnvelope(own, ok.result);
    expect(await balance(own, DEST)).toBe(1_000n);
  }, 90_000);
});
