import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/** Where the logs of a failed file's temporary folders are kept (git-ignored). */
export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');

/** A log worth keeping: `*.log` files, at most this many bytes each. */
const MAX_LOG_BYTES = 4 << 20;

/** Copies the `*.log` files under `dir` into test-artifacts/<file>/<folder>/. */
function keepLogs(dir: string, file: string): void {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.log') ? [join(d, e.name)] : [],
    );
  for (const log of walk(dir)) {
    if (statSync(log).size > MAX_LOG_BYTES) continue;
    const to = join(ARTIFACTS, basename(file), basename(dir), relative(dir, log));
    mkdirSync(join(to, '..'), { recursive: true });
    cpSync(log, to);
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
