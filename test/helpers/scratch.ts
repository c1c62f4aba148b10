import {
  closeSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/** Where the logs of a failed file's temporary folders are kept (git-ignored). */
export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

/** What is kept of a log: its last this many bytes. */
const MAX_LOG_BYTES = 4 << 20;

/** Copies the `*.log` files under `dir` (the last 4 MiB of each) into test-artifacts/<file>/<folder>/. */
export function keepLogs(dir: string, file: string): void {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.log') ? [join(d, e.name)] : [],
    );
  for (const log of walk(dir)) {
    const to = join(ARTIFACTS, basename(file), basename(dir), relative(dir, log));
    mkdirSync(join(to, '..'), { recursive: true });
    const size = statSync(log).size;
    if (size <= MAX_LOG_BYTES) {
      cpSync(log, to);
      continue;
    }
    const tail = Buffer.alloc(MAX_LOG_BYTES);
    const fd = openSync(log, 'r');
    try {
      readSync(fd, tail, 0, MAX_LOG_BYTES, size - MAX_LOG_BYTES);
    } finally {
      closeSync(fd);
    }
    writeFileSync(to, tail);
  }
}

/**
 * Temporary folders for one test file, all removed when the file's tests end (passed or
 * failed); when one failed, the folders' `*.log` files are kept under test-artifacts/ first.
 * Call at the top level of the file: it registers the afterAll.
 */
export function scratchDirs(): (prefix: string) => string {
  const dirs: string[] = [];
  let failedIn: string | undefined; // the file of a test that failed
  afterEach(({ task }) => {
    if (task.result?.state === 'fail') failedIn ??= task.file?.name ?? task.name;
  });
  afterAll(() => {
    for (const d of dirs.splice(0)) {
      try {
        if (failedIn) keepLogs(d, failedIn);
      } finally {
        rmSync(d, { recursive: true, force: true });
      }
    }
  });
  return (prefix) => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}
