import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeGet, startDevnet, until, type Devnet } from '../helpers/devnet';
import { spawnOwned } from '../helpers/processes';
import { freePortRun } from '../helpers/testNode';

/**
 * State sync across real processes. Four validators, two of them pruning (--history 20), keep
 * the state of every 10th final block for joining nodes. A fifth node, with an empty data
 * directory and only the two pruning nodes as peers, joins from the newest snapshot by its hash
 * (--sync state --checkpoint), follows by blocks and ends on the same state roots. Then a
 * validator whose chain folder is deleted joins the same way and produces blocks again.
 */
let net: Devnet;
let fifth: ChildProcess | undefined;
const status = (i: number) => net.get(i, '/status');

beforeAll(async () => {
  // Idle blocks every 400 ms: the pruning nodes reach their window (20 blocks above the longest protocol window) sooner.
  net = await startDevnet(4, { history: 20, historyNodes: [0, 1], snapshotInterval: 10, idleBlockMs: 400 });
}, 90_000);
afterAll(async () => {
  fifth?.kill('SIGKILL');
  await net?.stop();
});

async function newestSnapshot(i: number): Promise<{ height: number; hash: string; stateRoot: string }> {
  return until(
    async () => {
      const s = await net.get(i, '/snapshots');
      return s.snapshots.length > 0 && s.snapshots[0];
    },
    60_000,
    'a snapshot served',
  );
}

describe('state sync from pruning peers', () => {
  it('joins a fifth node from a snapshot, on the same state roots as the network', async () => {
    // The pruning nodes have dropped old history, and serve a snapshot above it.
    await until(async () => (await status(0)).historyFrom > 1 && (await status(1)).historyFrom > 1, 90_000, 'pruning');
    const snap = await newestSnapshot(0);
    const served = await net.get(1, '/snapshots');
    expect(served.interval).toBe(10);
    expect(served.snapshots.map((h: { hash: string }) => h.hash)).toContain(snap.hash);
    expect(snap.height % 10).toBe(0);

    const dataDir = join(net.dir, 'node4');
    await mkdir(dataDir, { recursive: true });
    const keyFile = join(dataDir, 'validator.json');
    await writeFile(keyFile, randomBytes(32).toString('hex'), { mode: 0o600 });
    const http = await freePortRun(1);
    const rpc = await freePortRun(1);
    const log = openSync(join(dataDir, 'node.log'), 'a');
    const [cmd, ...args] = net.nodes[0].command;
    const at = args.indexOf('node');
    fifth = spawnOwned(
      cmd,
      [
        ...args.slice(0, at + 1),
        '--data-dir',
        dataDir,
        '--http-port',
        String(http),
        '--rpc-port',
        String(rpc),
        '--genesis',
        join(net.dir, 'genesis.json'),
        '--validator-key',
        keyFile,
        '--allow-dev-validator', // the devnet's genesis names the development validators
        '--peers',
        `${net.nodes[0].http},${net.nodes[1].http}`,
        '--slot-ms',
        '200',
        '--idle-block-ms',
        '800',
        '--rate-limit-exempt',
        '127.0.0.0/8,::1',
        '--sync',
        'state',
        '--checkpoint',
        snap.hash,
      ],
      { stdio: ['ignore', log, log] },
    );
    const url = `http://127.0.0.1:${http}`;
    const get = async (path: string): Promise<any> => (await nodeGet(`${url}${path}`)).json();

    // It starts at the checkpoint, not at genesis: history and state from there.
    const joined = await until(
      async () => {
        const s = await get('/status');
        return s.height >= snap.height && s;
      },
      60_000,
      'the fifth node joined',
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}; its log:\n${await readFile(join(dataDir, 'node.log'), 'utf8')}`);
    });
    expect(joined.stateFrom).toBe(snap.height);
    expect(joined.historyFrom).toBe(snap.height + 1);
    const before = await nodeGet(`${url}/blocks/${snap.height - 1}`);
    expect(before.status).toBe(404);
    expect(((await before.json()) as { error: string }).error).toContain(
      `keeps history from height ${snap.height + 1}`,
    );
    const log0 = await readFile(join(dataDir, 'node.log'), 'utf8');
    expect(log0).toContain('state sync: done');

    // It executes the blocks after the checkpoint and reaches the network's state roots.
    const target = (await status(0)).finalizedHeight + 3;
    await until(async () => (await get('/status')).finalizedHeight >= target, 90_000, 'the fifth node follows');
    for (const h of [snap.height + 1, target]) {
      const [mine, theirs] = await Promise.all([get(`/blocks/${h}`), net.get(2, `/blocks/${h}`)]);
      expect(mine.stateRoot).toBe(theirs.stateRoot);
      expect(mine.hash).toBe(theirs.hash);
    }
  }, 240_000);

  it('brings a validator back by state sync (its chain folder deleted, its signing guard kept); it produces again', async () => {
    const validators: { address: string }[] = JSON.parse(await readFile(join(net.dir, 'dev-validators.json'), 'utf8'));
    const me = validators[3].address;
    const snap = await newestSnapshot(0);
    await net.kill(3);
    await rm(join(net.nodes[3].dataDir, 'chain'), { recursive: true, force: true });
    await net.restart(3, ['--sync', 'state', '--checkpoint', snap.hash]);
    const s = await until(async () => (await status(3)).stateFrom > 0 && status(3), 60_000, 'the validator joined');
    expect(s.stateFrom).toBeGreaterThanOrEqual(snap.height);
    const joinedAt = (await status(0)).height;
    await until(
      async () => {
        const v = await net.get(0, '/validators');
        const m = v.active.find((x: { address: string }) => x.address === me);
        return m && m.lastProduced !== null && m.lastProduced > joinedAt;
      },
      60_000,
      'the validator produces again',
    );
    const h = (await status(0)).finalizedHeight;
    const hashes = await Promise.all([0, 1, 2, 3].map((i) => net.get(i, `/blocks/${h}`).then((b) => b.hash)));
    expect(new Set(hashes).size).toBe(1);
  }, 180_000);
});
