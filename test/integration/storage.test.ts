/**
 * Storage failures: a read-only data directory at start, and a disk that fills up during
 * block production. Either way the node says so in one clear line and stops cleanly; a
 * full disk leaves a consistent store (the failed batch is not applied), so a restart
 * after space is freed resumes at the same head and the chain replays from genesis.
 *
 * Read-only and disk-full conditions need the operating system's cooperation: as an
 * ordinary user `chmod -R a-w` makes a directory read-only, but root ignores modes, so as
 * root the tests use a read-only bind mount (or `chattr +i`) and a small tmpfs. Where
 * mounting is not permitted the disk-full test falls back to an injected write failure
 * (which always runs too).
 */
import { execFileSync } from 'node:child_process';
import { spawnOwned } from '../helpers/processes';
import { chmod, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyChain } from '../../src/chain/verifyChain';
import { defaultNodeConfig, type NodeConfig } from '../../src/config/config';
import { isCairnError } from '../../src/errors/CairnError';
import { startNode } from '../../src/node/node';
import { MemoryKv, type KvBatch, type KvStore } from '../../src/state/kv';
import { ChainStore, type Head } from '../../src/storage/chainStore';
import { openStore, writeError } from '../../src/storage/rocks';
import { spawnNode } from '../helpers/childNode';
import { freePort, tempDir, waitUntil } from '../helpers/testNode';

const isRoot = process.getuid?.() === 0;
const sh = (cmd: string, ...args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const mounted: string[] = [];
afterAll(() => {
  for (const m of mounted.reverse()) sh('umount', '-l', m);
});

/** Makes `dir` read-only in the way that works for this user; returns how, or null if nothing works. */
async function makeReadOnly(dir: string): Promise<string | null> {
  if (!isRoot) {
    await chmodTree(dir, false);
    return 'chmod -R a-w';
  }
  if (sh('mount', '--bind', dir, dir)) {
    mounted.push(dir);
    if (sh('mount', '-o', 'remount,bind,ro', dir)) return 'read-only bind mount';
    sh('umount', dir);
    mounted.pop();
  }
  if (sh('chattr', '-R', '+i', dir)) return 'chattr -R +i';
  return null;
}

async function undoReadOnly(dir: string, how: string): Promise<void> {
  if (how.startsWith('chmod')) await chmodTree(dir, true);
  else if (how.startsWith('chattr')) sh('chattr', '-R', '-i', dir);
  else {
    sh('umount', dir);
    mounted.splice(mounted.indexOf(dir), 1);
  }
}

async function chmodTree(dir: string, writable: boolean): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) await chmodTree(p, writable);
    else await chmod(p, writable ? 0o644 : 0o444);
  }
  await chmod(dir, writable ? 0o755 : 0o555);
}

/** Runs `cairn node` to its end; returns the exit code and everything it printed. */
function runNodeToExit(dataDir: string, timeoutMs = 30_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    Promise.all([freePort(), freePort()]).then(([http, rpc]) => {
      const p = spawnOwned(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/cli/main.ts',
          'node',
          '--data-dir',
          dataDir,
          '--http-port',
          String(http),
          '--rpc-port',
          String(rpc),
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      p.stdout!.on('data', (d) => (out += d));
      p.stderr!.on('data', (d) => (out += d));
      const timer = setTimeout(() => {
        p.kill('SIGKILL');
        reject(new Error(`node did not exit within ${timeoutMs} ms:\n${out}`));
      }, timeoutMs);
      p.once('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, out });
      });
    }, reject);
  });
}

/** The stored chain replays from genesis to the stored state roots; returns the head. */
async function checkStore(dataDir: string): Promise<Head> {
  const kv = await openStore(join(dataDir, 'chain'));
  try {
    const store = new ChainStore(kv);
    const head = (await store.head())!;
    const check = await verifyChain((await store.genesisSpec())!, store.blocksFrom(0), new MemoryKv());
    expect(check).toEqual({ height: head.height, ok: true });
    return head;
  } finally {
    await kv.close();
  }
}

const ENOSPC = () =>
  writeError(
    '/data/chain',
    Object.assign(new Error('Batch was not applied'), {
      cause: Object.assign(new Error('While appending to file: /data/chain/000004.log: No space left on device'), {
        code: 'ENOSPC',
      }),
    }),
  );

describe('storage errors', () => {
  it('maps RocksDB write failures to STORAGE_WRITE naming the directory and the reason', () => {
    const e = ENOSPC();
    expect(isCairnError(e) && e.code).toBe('STORAGE_WRITE');
    expect(e.message).toBe('cannot write to data directory /data/chain: the disk is full (no space left on device)');
    const ro = writeError(
      '/d',
      new Error('Batch was not applied', {
        cause: new Error('IO error: While open a file for appending: /d/000009.log: Read-only file system'),
      }),
    );
    expect(ro.message).toBe('cannot write to data directory /d: the file system is read-only');
  });
});

describe('multi-get', () => {
  it('answers each key in order across the read batches a large set is split into (missing keys undefined)', async () => {
    const dir = await tempDir('cairn-many-');
    const kv = await openStore(join(dir, 'chain'));
    try {
      const key = (i: number) => Uint8Array.of(7, i >> 8, i & 0xff);
      const batch = kv.batch();
      for (let i = 0; i < 1_000; i += 2) batch.put(key(i), Uint8Array.of(i & 0xff, i >> 8));
      await kv.write(batch);
      for (const n of [1, 127, 129, 513, 1_000]) {
        const got = await kv.getMany(Array.from({ length: n }, (_, i) => key(n - 1 - i)));
        expect(got).toEqual(
          Array.from({ length: n }, (_, i) =>
            (n - 1 - i) % 2 ? undefined : Uint8Array.of((n - 1 - i) & 0xff, (n - 1 - i) >> 8),
          ),
        );
      }
    } finally {
      await kv.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('read-only data directory', () => {
  it('exits non-zero with one line naming the directory, on an existing store and on an empty directory', async () => {
    const dir = await tempDir('cairn-ro-');
    const empty = await tempDir('cairn-ro-empty-');
    try {
      // A store created by a first run.
      const first = await spawnNode(dir);
      expect(await first.kill('SIGTERM')).toBe(0);
      const how = await makeReadOnly(dir);
      const how2 = how && (await makeReadOnly(empty));
      if (!how || !how2)
        return void console.warn('read-only data directory test skipped: no way to make a directory read-only here');
      try {
        for (const d of [dir, empty]) {
          const { code, out } = await runNodeToExit(d);
          expect(code, out).toBe(1);
          const lines = out.trim().split('\n');
          expect(lines, out).toHaveLength(1); // no stack trace, no log spam
          expect(lines[0]).toMatch(
            new RegExp(`^cairn: data directory ${d}(/chain)? (is on a read-only file system|is not writable)$`),
          );
        }
      } finally {
        await undoReadOnly(dir, how);
        await undoReadOnly(empty, how2);
      }
      // Writable again: the same store opens and serves.
      const again = await spawnNode(dir);
      expect(await again.kill('SIGTERM')).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(empty, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('disk full during block production', () => {
  it('injected: the commit fails, the node raises storage_failure, ' +
    'stops cleanly, and restarts at the same head', async () => {
    const dataDir = await tempDir('cairn-full-');
    const config: NodeConfig = {
      ...defaultNodeConfig,
      dataDir,
      httpPort: await freePort(),
      rpcPort: await freePort(),
      slotMs: 50,
      idleBlockMs: 50,
      logLevel: 'silent',
      verifyWorkers: 1,
      rateLimitExempt: ['127.0.0.0/8'],
    };
    try {
      let full = false;
      let failedWrites = 0;
      const wrapKv = (kv: KvStore): KvStore =>
        Object.assign(Object.create(kv) as KvStore, {
          async write(b: KvBatch) {
            if (full) {
              failedWrites++;
              throw ENOSPC();
            }
            return kv.write(b);
          },
        });
      const node = await startNode(config, { wrapKv });
      const url = `http://127.0.0.1:${config.httpPort}`;
      await waitUntil(async () => node.view.head.height >= 5);
      full = true;
      await node.stopped; // by itself
      const last = node.view.head;
      expect(failedWrites).toBe(1);
      expect(node.failure).toBe(
        'storage failure: cannot write to data directory /data/chain: the disk is full (no space left on device)',
      );
      const [alert] = node.alerts.recent(10);
      expect(alert).toMatchObject({
        kind: 'storage_failure',
        severity: 'critical',
        height: last.height,
        details: { dir: '/data/chain', code: 'ENOSPC' },
      });
      // HTTP closed; RocksDB closed (it opens again: no lock held).
      await expect(fetch(`${url}/status`)).rejects.toThrow();
      const head = await checkStore(dataDir);
      expect(head).toEqual(last);
      // Space freed: the node resumes at the same head and produces on.
      const again = await startNode(config);
      expect(again.view.head).toEqual(last);
      await waitUntil(async () => again.view.head.height >= last.height + 3);
      await again.stop();
      expect(again.failure).toBeNull();
      await checkStore(dataDir);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('real: a small tmpfs fills up; the process exits non-zero with "storage failure" and the store is ' +
    'consistent after growing it', async () => {
    const dir = await tempDir('cairn-tmpfs-');
    if (!sh('mount', '-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir)) {
      await rm(dir, { recursive: true, force: true });
      return void console.warn(
        'tmpfs disk-full test skipped: mount is not permitted here (the injected test covers the path)',
      );
    }
    mounted.push(dir);
    try {
      const node = await spawnNode(dir, ['--slot-ms', '50', '--idle-block-ms', '50', '--verify-workers', '1']);
      let seen: { height: number; hash: string } | undefined;
      // Watch the head until the process ends by itself (a few seconds of empty blocks fill 1 MiB).
      const watching = (async () => {
        while (node.proc.exitCode === null) {
          try {
            const s = (await (await fetch(`${node.url}/status`)).json()) as { height: number; headHash: string };
            if (typeof s.height === 'number') seen = { height: s.height, hash: s.headHash };
          } catch {
            /* stopping */
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const code = await Promise.race([
        node.exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 90_000)),
      ]);
      await watching;
      if (code === 'timeout') await node.kill('SIGKILL');
      expect(code, node.output()).toBe(1);
      const out = node.output();
      // Whichever write meets the full disk first: the block's (RocksDB) or the signing guard's record of it.
      expect(out).toMatch(
        /storage failure: cannot (write to data directory \S+\/chain|record the last signed block in \S+): the disk is full/,
      );
      expect(out).toMatch(/cairn: the node stopped: storage failure/);
      expect(out).toMatch(/"kind":"storage_failure"/); // the alert, logged
      expect(out).not.toMatch(/node stopped on its own|SIGKILL/);
      expect(seen).toBeDefined();
      // Free space (grow the tmpfs) and restart: the head is intact and the chain verifies.
      expect(sh('mount', '-o', 'remount,size=64m', dir)).toBe(true);
      const before = await checkStore(dir);
      expect(before.height).toBeGreaterThanOrEqual(seen!.height);
      const again = await spawnNode(dir, ['--slot-ms', '50', '--verify-workers', '1']);
      const block = (await (await fetch(`${again.url}/blocks/${seen!.height}`)).json()) as { hash: string };
      expect(block.hash).toBe(seen!.hash);
      const s = (await (await fetch(`${again.url}/status`)).json()) as { height: number };
      expect(s.height).toBeGreaterThanOrEqual(before.height);
      expect(await again.kill('SIGTERM')).toBe(0);
      await checkStore(dir);
    } finally {
      sh('umount', dir);
      mounted.splice(mounted.indexOf(dir), 1);
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('503 while starting', () => {
  it('listens before the chain is open and answers 503 {error} with Retry-After until ready', async () => {
    const dataDir = await tempDir('cairn-start-');
    const config: NodeConfig = {
      ...defaultNodeConfig,
      dataDir,
      httpPort: await freePort(),
      rpcPort: await freePort(),
      logLevel: 'silent',
      verifyWorkers: 1,
      rateLimitExempt: ['127.0.0.0/8'],
    };
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const starting = startNode(config, { beforeOpen: () => gate });
    try {
      const url = `http://127.0.0.1:${config.httpPort}`;
      const r = await waitUntil(async () => fetch(`${url}/status`).catch(() => undefined));
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await r.json()).toEqual({ error: expect.stringMatching(/starting/) });
      const post = await fetch(`${url}/tx`, { method: 'POST', body: '{}' });
      expect(post.status).toBe(503);
      expect(await post.json()).toHaveProperty('error');
      // JSON-RPC opens only once ready.
      await expect(fetch(`http://127.0.0.1:${config.rpcPort}`, { method: 'POST', body: '{}' })).rejects.toThrow();
      release();
      const node = await starting;
      const ok = await fetch(`${url}/status`);
      expect(ok.status).toBe(200);
      await node.stop();
    } finally {
      release();
      await starting.then(
        (n) => n.stop(),
        () => {},
      );
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('a failed start closes the port it opened and rejects with one clear error', async () => {
    const dataDir = await tempDir('cairn-start-');
    await mkdir(join(dataDir, 'chain'));
    const config: NodeConfig = {
      ...defaultNodeConfig,
      dataDir,
      httpPort: await freePort(),
      rpcPort: await freePort(),
      logLevel: 'silent',
      verifyWorkers: 1,
    };
    try {
      // A plain file where the database directory should be.
      await rm(join(dataDir, 'chain'), { recursive: true });
      execFileSync('touch', [join(dataDir, 'chain')]);
      await expect(startNode(config)).rejects.toThrow(`data directory ${join(dataDir, 'chain')}`);
      await expect(fetch(`http://127.0.0.1:${config.httpPort}/status`)).rejects.toThrow();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
