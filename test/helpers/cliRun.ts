import { runCli, type CliIo } from '../../src/cli/main';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in-process with captured output (what a terminal would show) and `env`. */
export async function runCliCaptured(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (s) => out.push(s), err: (s) => err.push(s), env };
  const code = await runCli(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The CLI against the node at `url` (signing with `secret` when given), its output parsed as JSON when it is. */
export async function runCliJson(url: string, argv: string[], secret?: string): Promise<CliRun & { json: any }> {
  const r = await runCliCaptured([...argv, '--node', url], secret ? { CAIRN_SECRET: secret } : {});
  let json: unknown;
  try {
    json = JSON.parse(r.out);
  } catch {
    json = undefined;
  }
  return { ...r, json };
}
