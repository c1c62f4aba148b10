import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Every process a test starts goes through here: each is the leader of its own process group
 * (`detached`), so killing the group also kills what it started (a devnet's nodes, a README
 * script's background oracle). The groups still alive are killed when the test file's tests
 * end, passed or failed (test/helpers/setup.ts registers that for every file), when the test
 * process exits, and when a group's leader exits (what it left in the background): a failing
 * test leaves nothing running.
 */
const groups = new Set<number>();

export function spawnOwned(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  const proc = spawn(command, args, { ...options, detached: true });
  if (proc.pid !== undefined) groups.add(proc.pid);
  // The leader gone, what it left behind goes too (and its pid leaves the set before it can be reused).
  proc.once('exit', () => killGroup(proc.pid));
  return proc;
}

/** Runs a command to its end (its whole group is owned meanwhile): its output, or a rejection with it. */
export function runOwned(
  command: string,
  args: readonly string[],
  options: SpawnOptions & { timeoutMs?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawnOwned(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout!.on('data', (d) => (stdout += d));
    proc.stderr!.on('data', (d) => (stderr += d));
    const timer = options.timeoutMs ? setTimeout(() => killGroup(proc.pid), options.timeoutMs) : undefined;
    proc.once('error', reject);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          Object.assign(
            new Error(`${command} ${args.join(' ').slice(0, 200)} ended with ${code ?? signal}\n${stderr}`),
            { stdout, stderr },
          ),
        );
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  groups.delete(pid);
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* the group is gone */
  }
}

/** Kills every owned group still alive. */
export function killOwned(): void {
  for (const pid of [...groups]) killGroup(pid);
}

process.once('exit', killOwned);
