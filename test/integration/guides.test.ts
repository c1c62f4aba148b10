import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchDeposits, type Deposit } from '../../examples/deposit-watcher';
import { deployWithEthers, sendWithEthers, sendWithViem } from '../../examples/ethereum';
import { followToEnd, propose, vote } from '../../examples/governance';
import { newWallet, pay } from '../../examples/wallet';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex, type Hex } from '../../src/primitives/hex';
import { CairnClient } from '../../src/sdk';
import { startTestNode, waitUntil, type TestNode } from '../helpers/testNode';
import { scratchDirs } from '../helpers/scratch';

const scratch = scratchDirs();

/**
 * The guides under examples/ run against a real node: wallet, deposit watcher, governance participant, Ethereum
 * developer.
 */
let t: TestNode;
let client: CairnClient;
let dev: { secret: string; address: string; secp256k1PrivateKey: string }[];
let keys: HybridKeys[];
let validator: HybridKeys;
const dir = scratch('cairn-guides-');

beforeAll(async () => {
  t = await startTestNode({ devAccounts: 6, idleBlockMs: 100 });
  client = new CairnClient(t.url);
  dev = JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8'));
  keys = dev.map((a) => deriveKeys(fromHex(a.secret)));
  validator = deriveKeys(
    fromHex(
      (JSON.parse(await readFile(join(t.dataDir, 'dev-validators.json'), 'utf8')) as { secret: string }[])[0].secret,
    ),
  );
}, 60_000);
afterAll(async () => t?.cleanup());

describe('guides', () => {
  it(
    'wallet: a new key, funded from a dev account, ' + 'pays and sees it final; a refusal is "refused", never lost',
    async () => {
      const w = newWallet();
      expect(w.native).toMatch(/^cairn1/);
      expect(await pay(client, keys[0], w.address, 5n * COIN)).toMatchObject({ outcome: 'finalized' });
      const r = await pay(client, w.keys, keys[1].address, 1n * COIN);
      expect(r).toMatchObject({ outcome: 'finalized' });
      expect(BigInt((await client.account(w.address))!.balance)).toBeLessThan(4n * COIN + 1n);
      const broke = await pay(client, newWallet().keys, keys[1].address, 1n * COIN);
      expect(broke.outcome).toBe('refused');
      expect((broke as { reason?: string }).reason).toBeTruthy();
    },
  );

  it(
    'deposit watcher: credits each final deposit once; ' + 'restarted from its cursor file, credits only the new one',
    async () => {
      const exchange = newWallet();
      const cursorFile = join(dir, 'watcher.json');
      const credited: Deposit[] = [];
      const run = async (n: number) => {
        const stop = new AbortController();
        const done = watchDeposits({
          node: t.url,
          address: exchange.native,
          cursorFile,
          signal: stop.signal,
          pollMs: 50,
          credit: (d) => void credited.push(d),
        });
        await waitUntil(async () => credited.length >= n, 20_000);
        stop.abort();
        await done;
      };
      await pay(client, keys[2], exchange.address, 3n * COIN);
      await pay(client, keys[3], exchange.address, 4n * COIN);
      await run(2);
      expect(credited.map((d) => d.amount)).toEqual([3n * COIN, 4n * COIN]);
      await pay(client, keys[2], exchange.address, 5n * COIN);
      await run(3);
      expect(credited.map((d) => d.amount)).toEqual([3n * COIN, 4n * COIN, 5n * COIN]);
      expect(new Set(credited.map((d) => d.id)).size).toBe(3);
    },
  );

  it('governance participant: proposes, votes (the validator), follows the proposal to EXECUTED', async () => {
    const id = await propose(client, keys[4], 'BANK_SIZE', '5', 100n * COIN);
    await vote(client, validator, id, 'yes');
    const end = await followToEnd(client, id, { pollMs: 50 });
    expect(end.status).toBe('EXECUTED');
    expect(end.transitions.map((x) => x.split(' @')[0])).toEqual([
      '∅ -xstate.init-> VOTING',
      'VOTING -TALLY-> VOTING',
      'VOTING -DEADLINE-> QUEUED',
      'QUEUED -DEADLINE-> EXECUTED',
    ]);
  }, 60_000);

  it('Ethereum developer: ethers and viem send value with the same key that controls the native account', async () => {
    const rpcUrl = `http://127.0.0.1:${t.node.config.rpcPort}`;
    const e = await sendWithEthers(rpcUrl, dev[5].secp256k1PrivateKey, keys[1].address, 10n ** 12n);
    expect(e.status).toBe(1);
    const v = await sendWithViem(rpcUrl, dev[5].secp256k1PrivateKey as Hex, keys[1].address as Hex, 2n * 10n ** 12n);
    expect(v).toMatchObject({ chainId: 72020, status: 'success' });
    expect(v.balance).toBeGreaterThan(0n);
    const d = await deployWithEthers(rpcUrl, dev[5].secp256k1PrivateKey);
    expect(d).toMatchObject({ count: 2n, events: 2 });
    expect(await client.account(d.address)).not.toBeNull();
  }, 60_000);
});
