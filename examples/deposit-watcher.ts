/**
 * An exchange's deposit watcher on the SDK: follows the deposit address with followAccount
 * and credits each incoming transfer once, and only once it is final (a reorganization can
 * never take back a credited deposit). The cursor is on disk: a restarted watcher goes on
 * where it stopped, without crediting anything twice. It waits out 429 and 503.
 *
 *   npx tsx examples/deposit-watcher.ts --address <deposit 0x… or cairn1…> --state watcher.json [--node <url>]
 */
import { CairnClient, fileCursor, followAccount, parseAddress } from '../src/sdk';
import type { TxSummary } from '../src/views';
import { arg } from './support';

export interface Deposit {
  id: string;
  from: string;
  amount: bigint;
  height: number;
}

/**
 * Calls `credit` for each final incoming TRANSFER to `address` that succeeded, in chain order, until `signal` aborts.
 */
export async function watchDeposits(o: {
  node: string;
  address: string;
  cursorFile: string;
  credit: (d: Deposit) => void | Promise<void>;
  signal?: AbortSignal;
  pollMs?: number;
}): Promise<void> {
  const client = new CairnClient(o.node);
  const me = parseAddress(o.address);
  if (!me) throw new Error(`not an address: ${o.address}`);
  const isDeposit = (t: TxSummary) =>
    t.type === 'TRANSFER' && t.to === me && t.from !== me && t.result?.status === 'success';
  for await (const t of followAccount(client, me, {
    cursor: fileCursor(o.cursorFile),
    signal: o.signal,
    pollMs: o.pollMs,
  })) {
    if (isDeposit(t)) await o.credit({ id: t.id, from: t.from, amount: BigInt(t.amount), height: t.blockHeight! });
  }
}

if (process.argv[1]?.endsWith('deposit-watcher.ts')) {
  const address = arg('address');
  if (!address || process.argv.includes('--help')) {
    console.error(
      'usage: npx tsx examples/deposit-watcher.ts --address <deposit address> [--state watcher.json] [--node <url>]',
    );
    process.exit(address ? 0 : 2);
  }
  const stop = new AbortController();
  process.on('SIGINT', () => stop.abort());
  watchDeposits({
    node: arg('node') ?? process.env.CAIRN_NODE ?? 'http://127.0.0.1:6070',
    address,
    cursorFile: arg('state') ?? 'watcher.json',
    signal: stop.signal,
    credit: (d) =>
      console.log(JSON.stringify({ credit: d.amount.toString(), from: d.from, tx: d.id, height: d.height })),
  }).catch((e) => (console.error(e), process.exit(1)));
}
