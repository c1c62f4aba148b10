/**
 * An oracle built on the SDK: registers (staking MIN_ORACLE_STAKE), follows the AI task feed
 * (`followTasks`: every final transition, the end of each window included), and on each one
 * reads the task with `for` = itself and sends what the node says it may send now (`actions`,
 * decided by the task's own rules): commits to quorum tasks, reveals, posts results of tasks
 * designated to it, claims settled rewards. It restates no rule of the task machine. It
 * survives its own restart: the follower's cursor and every commitment's output and salt are
 * on disk (written before the commit is sent), so a restarted oracle reveals what it committed
 * to. It honours 429 Retry-After and 503 (a syncing node) by waiting.
 *
 *   npx tsx examples/oracle.ts --node http://127.0.0.1:6070 --key oracle.json --state oracle-state.json \
 *     [--stake <base units>]
 *
 * `--key` is a JSON file {"secret": "<64 hex>"} (`cairn keygen > oracle.json` writes one). The "model" here
 * answers "what is A + B" with the sum and anything else with the prompt in upper case: replace
 * `answer` with a real one.
 */
import { randomBytes } from 'node:crypto';
import { CairnClient, followTasks, taskCommitment, type CursorStore, type HybridKeys } from '../src/sdk';
import type { Hex } from '../src/primitives/hex';
import type { TaskView } from '../src/views';
import { arg, keysFromFile, loadState, retryingLogged, saveState, sendIncluded } from './support';

export const answer = (prompt: string): string => {
  const m = /^what is (-?\d+) \+ (-?\d+)\??$/i.exec(prompt.trim());
  return m ? String(BigInt(m[1]) + BigInt(m[2])) : prompt.toUpperCase();
};

/** The transactions this oracle sends (it leaves bids, challenges, verdicts and refunds to others). */
const DUTIES: readonly string[] = ['AI_COMMIT', 'AI_REVEAL', 'AI_RESULT', 'AI_CLAIM'];

interface Duty {
  output: string;
  salt: string;
  committed?: boolean;
  revealed?: boolean;
  resulted?: boolean;
}
interface OracleState {
  cursor: number | null;
  duties: Record<string, Duty>;
}

export interface OracleOptions {
  node: string;
  keys: HybridKeys;
  stateFile: string;
  stake?: bigint;
  pollMs?: number;
  answer?: (prompt: string) => string;
  log?: (msg: string) => void;
}

export class Oracle {
  private readonly client: CairnClient;
  private state: OracleState;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly log: (msg: string) => void;

  constructor(private readonly o: OracleOptions) {
    this.client = new CairnClient(o.node);
    this.state = loadState<OracleState>(o.stateFile, { cursor: null, duties: {} });
    this.log = o.log ?? ((m) => console.error(`[oracle ${o.keys.address.slice(0, 10)}] ${m}`));
  }

  get address() {
    return this.o.keys.address;
  }

  private save(): void {
    saveState(this.o.stateFile, this.state);
  }

  private send(input: Parameters<CairnClient['sendTx']>[1], what: string): Promise<boolean> {
    return sendIncluded(this.client, this.o.keys, input, what, this.log);
  }

  async register(): Promise<void> {
    const me = (await this.client.oracles()).oracles.find((x) => x.address === this.address);
    if (me && me.status !== 'left') return;
    const stake = this.o.stake ?? BigInt((await this.client.oracles()).minStake);
    await this.send({ type: 'ORACLE_REGISTER', amount: stake }, `register with ${stake}`);
  }

  /** The follower's cursor, kept in the state file beside the duties. */
  private cursor(): CursorStore {
    return {
      load: () => this.state.cursor,
      save: (cursor) => {
        this.state.cursor = cursor;
        this.save();
      },
    };
  }

  /**
   * A task moved (a final transition: created, a commit, a window's end…): read it with `for`
   * = this oracle, so the node says which transactions it may send now — the oracle only picks
   * the ones it cares about.
   */
  async onTransition(id: string): Promise<void> {
    const t = await this.client.task(id, { for: this.address });
    if (t) await this.consider(t);
  }

  /** Whether `type` is open to this oracle in the next block (as of the head the node decided the actions at). */
  private open(t: TaskView, type: NonNullable<TaskView['actions']>[number]['type']): boolean {
    return (t.actions ?? []).some((a) => a.type === type && a.from <= (t.actionsAt ?? 0) + 1);
  }

  /** A task seen in the feed: take a seat if it offers this oracle one (a commit or a designated result). */
  private async consider(t: TaskView): Promise<void> {
    if (!this.state.duties[t.id] && (this.open(t, 'AI_COMMIT') || this.open(t, 'AI_RESULT'))) {
      this.state.duties[t.id] = { output: (this.o.answer ?? answer)(t.prompt), salt: randomBytes(16).toString('hex') };
      this.save(); // before the commit goes out: a restart must be able to reveal it
    }
    if (this.state.duties[t.id]) await this.act(t);
  }

  private async act(t: TaskView): Promise<void> {
    const d = this.state.duties[t.id];
    const taskId = t.id as Hex;
    const mine = (type: string) => type !== 'AI_CLAIM' || t.winners.includes(this.address);
    if (this.open(t, 'AI_COMMIT') && !d.committed) {
      const commit = taskCommitment({ oracle: this.address, output: d.output, salt: d.salt, taskId });
      d.committed = await this.send({ type: 'AI_COMMIT', taskId, commit }, `commit to ${taskId.slice(0, 10)}`);
    } else if (this.open(t, 'AI_REVEAL') && !d.revealed) {
      d.revealed = await this.send(
        { type: 'AI_REVEAL', taskId, output: d.output, salt: d.salt },
        `reveal for ${taskId.slice(0, 10)}`,
      );
    } else if (this.open(t, 'AI_RESULT') && !d.resulted) {
      d.resulted = await this.send(
        { type: 'AI_RESULT', taskId, output: d.output },
        `result for ${taskId.slice(0, 10)}`,
      );
    } else if (this.open(t, 'AI_CLAIM') && mine('AI_CLAIM')) {
      await this.send({ type: 'AI_CLAIM', taskId }, `claim ${taskId.slice(0, 10)}`);
    }
    // Nothing of its duties open, and no deadline ahead to open one: settled, expired, or no seat.
    if (!(t.actions ?? []).some((a) => DUTIES.includes(a.type) && mine(a.type)) && t.next === null)
      delete this.state.duties[t.id];
    this.save();
  }

  /** Follows the task feed until stop(), waiting out 429 (Retry-After) and 503 (syncing) answers. */
  async run(): Promise<void> {
    try {
      await this.retrying(() => this.register());
      const feed = followTasks(this.client, {
        cursor: this.cursor(),
        pollMs: this.o.pollMs ?? 500,
        signal: this.abort.signal,
        onRetry: ({ code, waitMs }) => this.log(`${code}: waiting ${waitMs} ms`),
      });
      for await (const tr of feed) await this.retrying(() => this.onTransition(tr.id));
    } catch (e) {
      if (!this.stopped) throw e; // stopped while waiting out an error: a clean end
    }
  }

  /** Runs `f`, waiting out 429 (its Retry-After), 503 (a syncing node) and transport errors. */
  retrying(f: () => Promise<void>): Promise<void> {
    return retryingLogged(f, this.log, this.abort.signal);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }
}

if (process.argv[1]?.endsWith('oracle.ts')) {
  const keyFile = arg('key');
  const stateFile = arg('state') ?? 'oracle-state.json';
  if (!keyFile || process.argv.includes('--help')) {
    console.error(
      'usage: npx tsx examples/oracle.ts --key <key.json> [--node <url>] [--state <file>] [--stake <base units>]',
    );
    process.exit(keyFile ? 0 : 2);
  }
  const keys = keysFromFile(keyFile);
  const oracle = new Oracle({
    node: arg('node') ?? process.env.CAIRN_NODE ?? 'http://127.0.0.1:6070',
    keys,
    stateFile,
    stake: arg('stake') ? BigInt(arg('stake')!) : undefined,
  });
  process.on('SIGINT', () => oracle.stop());
  process.on('SIGTERM', () => oracle.stop());
  oracle.run().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
