/**
 * A governance participant on the SDK: reads the governable parameters, proposes a change,
 * votes with its stake, and follows the proposal's transitions (final only, with
 * followProposals) until it is decided and, if it passed, executed.
 *
 *   npx tsx examples/governance.ts --secret <64 hex> --param BANK_SIZE --value 4 --deposit 100000000 [--node <url>]
 */
import { CairnClient, deriveKeys, followProposals, type HybridKeys, type TxInput } from '../src/sdk';
import { fromHex } from '../src/primitives/hex';
import { arg } from './support';

const DECIDED = new Set(['EXECUTED', 'FAILED', 'REJECTED', 'VETOED', 'EXPIRED']);

/** Proposes `param` = `value`; returns the proposal id. */
export async function propose(
  client: CairnClient,
  keys: HybridKeys,
  param: string,
  value: string,
  deposit: bigint,
): Promise<string> {
  const r = await client.sendTx(keys, { type: 'GOV_PROPOSE', param, value, deposit } as TxInput, {
    wait: 'included',
    timeoutMs: 30_000,
  });
  if (!r.verdict.accepted) throw new Error(`proposal refused: ${r.verdict.reason}`);
  if (r.wait?.record?.result?.status !== 'success')
    throw new Error(`proposal failed: ${r.wait?.record?.result?.error ?? r.wait?.outcome}`);
  return r.tx.id;
}

export async function vote(
  client: CairnClient,
  keys: HybridKeys,
  proposalId: string,
  choice: 'yes' | 'no' | 'abstain' | 'veto',
): Promise<void> {
  const r = await client.sendTx(keys, { type: 'GOV_VOTE', proposalId, vote: choice } as TxInput, {
    wait: 'included',
    timeoutMs: 30_000,
  });
  if (r.wait?.record?.result?.status !== 'success')
    throw new Error(`vote failed: ${r.verdict.reason ?? r.wait?.record?.result?.error}`);
}

/** Follows the proposal until it is decided (final transitions only); returns its transitions and end state. */
export async function followToEnd(
  client: CairnClient,
  proposalId: string,
  opts: { pollMs?: number; signal?: AbortSignal } = {},
): Promise<{ status: string; transitions: string[] }> {
  const transitions: string[] = [];
  for await (const t of followProposals(client, { pollMs: opts.pollMs, signal: opts.signal })) {
    if (t.id !== proposalId) continue;
    transitions.push(`${t.from || '∅'} -${t.event}-> ${t.to} @${t.height}`);
    if (DECIDED.has(t.to)) return { status: t.to, transitions };
  }
  return { status: 'stopped', transitions };
}

if (process.argv[1]?.endsWith('governance.ts')) {
  const secret = arg('secret') ?? process.env.CAIRN_SECRET;
  const param = arg('param');
  if (!secret || !param || process.argv.includes('--help')) {
    console.error(
      'usage: npx tsx examples/governance.ts --secret <hex> --param <NAME> --value <n> ' +
        '[--deposit <base units>] [--node <url>]',
    );
    process.exit(secret && param ? 0 : 2);
  }
  const client = new CairnClient(arg('node') ?? process.env.CAIRN_NODE ?? 'http://127.0.0.1:6070');
  const keys = deriveKeys(fromHex(secret));
  (async () => {
    const gov = await client.governance();
    console.log(
      `current ${param}:`,
      JSON.stringify((gov as unknown as { params: Record<string, unknown> }).params?.[param] ?? null),
    );
    const id = await propose(client, keys, param, arg('value') ?? '0', BigInt(arg('deposit') ?? '100000000'));
    console.log('proposal', id);
    await vote(client, keys, id, 'yes');
    const end = await followToEnd(client, id);
    for (const t of end.transitions) console.log(t);
  })().catch((e) => (console.error(e), process.exit(1)));
}
