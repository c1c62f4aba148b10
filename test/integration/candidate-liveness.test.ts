import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COIN } from '../../src/primitives/amount';
import { toHex } from '../../src/primitives/hex';
import { CairnClient, deriveKeys } from '../../src/sdk';
import { spawnNode, type ChildNode } from '../helpers/childNode';
import { runCliJson } from '../helpers/cliRun';
import { scratchDirs } from '../helpers/scratch';
import { waitUntil } from '../helpers/testNode';

/**
 * Issue 24: a fresh account stands as a validator candidate on the node `npm start` runs
 * (`cairn node`, the development network: epochs of 10 blocks) and never runs a node of its
 * own. Before, the election put it in the set in force, finality needed both producers and
 * `finalizedHeight` stopped for good. Now it joins as pending: finality goes on without it,
 * and after JOINING_ROUNDS rounds without a block it is jailed and leaves the set in force.
 * Slots of 200 ms keep the three epochs short.
 */
const scratch = scratchDirs();
let node: ChildNode;
let dataDir: string;
let client: CairnClient;
const read = async (path: string): Promise<any> => (await fetch(`${node.url}${path}`)).json();

beforeAll(async () => {
  dataDir = scratch('cairn-candidate-');
  node = await spawnNode(dataDir, ['--slot-ms', '200', '--idle-block-ms', '200']);
  client = new CairnClient(node.url);
}, 60_000);
afterAll(async () => {
  if (node?.proc.exitCode === null) await node.kill('SIGKILL');
});

describe('a candidate with no node behind it (issue 24)', () => {
  it('never stops finality: 3 epochs after it stood, every block is final within 3 blocks of the head', async () => {
    const [dev] = JSON.parse(await readFile(join(dataDir, 'dev-accounts.json'), 'utf8')) as { secret: string }[];
    const secret = toHex(randomBytes(32));
    const fresh = deriveKeys(Buffer.from(secret.slice(2), 'hex'));
    const funded = await client.send(
      deriveKeys(Buffer.from(dev.secret.replace(/^0x/, ''), 'hex')),
      { type: 'TRANSFER', to: fresh.address, amount: String(2_100n * COIN), fee: '1000', data: null },
      { wait: 'included', timeoutMs: 30_000 },
    );
    expect(funded.verdict.accepted).toBe(true);

    const stood = await runCliJson(
      node.url,
      [
        'stake',
        'add',
        '--amount',
        String(2_000n * COIN),
        '--candidate',
        '--wait',
        'included',
        '--poll',
        '50',
        '--timeout',
        '30000',
      ],
      secret,
    );
    expect(stood.code, stood.err).toBe(0);
    expect(stood.err).toContain('a node must sign blocks with this key (docs/VALIDATOR.md)');
    const from = (await client.status()).height;

    // The next election (a multiple of 10) puts it in the set in force, pending.
    const seenPending = await waitUntil(
      async () => {
        const v = await read('/validators');
        return v.members.find(
          (m: any) => m.address === fresh.address && m.state === 'pending' && m.countsForFinality === false,
        );
      },
      60_000,
      100,
    );
    expect(seenPending.pendingSince).toBeGreaterThan(from);

    // Three epochs on, finality never fell more than 3 blocks behind the head: with 2 in force, finality epochs are 2
    // blocks, and the validator's vote in each justifies its checkpoint (the pending member does not count), so a block
    // is final by the end of the next epoch (docs/PROTOCOL.md "Finality").
    let worst = 0;
    await waitUntil(
      async () => {
        const s = await read('/status');
        worst = Math.max(worst, s.height - s.finalizedHeight);
        expect(s.height - s.finalizedHeight, `height ${s.height}, finalized ${s.finalizedHeight}`).toBeLessThanOrEqual(
          3,
        );
        expect(s.finalityBehind).toBeNull();
        return s.height >= from + 30;
      },
      90_000,
      100,
    );

    // It produced nothing: jailed for downtime, out of the set in force.
    const v = await read('/validators');
    expect(v.inForce).not.toContain(fresh.address);
    expect(v.candidates.concat(v.active, v.bank).find((c: any) => c.address === fresh.address)?.jailed).toMatchObject({
      reason: 'downtime',
    });
    console.log(`candidate liveness: worst lag ${worst} block(s) over ${(await client.status()).height - from} blocks`);
  }, 180_000);
});
