/**
 * Issue 23 row 3: a stranger's VM_DEPLOYs whose init code loops until out of gas
 * (0x5b600056: JUMPDEST PUSH1 0 JUMP), each with the largest gas limit a transaction may
 * declare (VM_MAX_GAS), about 0.052 coin each. Before the block gas budget one block took all
 * of them (11 s for 40). Reused by test/adversarial/vm-deploy-flood.test.ts and bench/attack.ts.
 */
import { Wallet } from 'ethers';
import { devAccounts } from '../../../src/chain/devnet';
import { signTx } from '../../../src/chain/envelope';
import { deriveKeys, type HybridKeys } from '../../../src/crypto/keys';
import { keccak256 } from '../../../src/crypto/hash';
import { toHex, utf8 } from '../../../src/primitives/hex';
import { GAS_PRICE_WEI, VM_MAX_GAS } from '../../../src/protocol/params';
import { ATTACKER, networkOf, requestFrom, rpcFrom, waitFor } from '../lib';

/** JUMPDEST PUSH1 0 JUMP: loops until its gas is gone. */
export const LOOPING_INIT_CODE = '0x5b600056';

export interface DeployFloodOpts {
  /** Deployments to send (40). */
  count?: number;
  /** Envelope of each: hybrid (POST /tx), eth (eth_sendRawTransaction) or alternating (default). */
  envelope?: 'hybrid' | 'eth' | 'both';
  /** The attacker's source address (ATTACKER). */
  from?: string;
  /** Seed of the attacker's key (a fresh account, funded from development account 0). */
  seed?: string;
}

export interface DeployFloodStats {
  sent: number;
  /** Refusals at admission (reason strings). */
  refused: string[];
  ids: string[];
  /** Height of each included deployment (by id). */
  included: Map<string, number>;
  /** Blocks that held deployments: height → how many, their gasUsed and gasLimit (eth_getBlockByNumber). */
  blocks: { height: number; deploys: number; gasUsed: bigint; gasLimit: bigint }[];
}

export interface DeployFlood {
  /** Resolves once every deployment was submitted (accepted or refused). */
  submitted: Promise<void>;
  /** Waits until every accepted deployment is in a block (or `timeoutMs`), then reports. */
  stop(timeoutMs?: number): Promise<DeployFloodStats>;
}

async function rpc(from: string, url: string, method: string, params: unknown[]): Promise<any> {
  const r = await rpcFrom(from, url, method, params);
  if (r?.error) throw new Error(`${method}: ${r.error.message}`);
  return r?.result;
}

/** POST with the attacker's patience: a 429 is waited out, as a real sender would. */
async function post(from: string, url: string, body: unknown): Promise<any> {
  for (let i = 0; ; i++) {
    const r = await requestFrom(from, url, { body });
    if (r.status !== 429 || i > 50) return r.json;
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** Funds a fresh attacker account from development account 0 and waits until it holds the coins. */
export async function fundedAttacker(
  target: { url: string; rpcUrl: string },
  seed: string,
  from: string,
): Promise<HybridKeys> {
  const keys = deriveKeys(keccak256(utf8(seed)));
  const dev = devAccounts(1)[0].keys;
  const nonce = Number(await rpc(from, target.rpcUrl, 'eth_getTransactionCount', [dev.address, 'pending']));
  const fund = signTx(
    dev,
    { type: 'TRANSFER', to: keys.address, amount: String(10n * 1_000_000n), fee: '1000', nonce, data: null },
    await networkOf(target.url),
  );
  const v = await post(from, `${target.url}/tx`, fund);
  if (!v?.accepted) throw new Error(`funding refused: ${JSON.stringify(v)}`);
  await waitFor(
    'attacker funded',
    async () => BigInt(await rpc(from, target.rpcUrl, 'eth_getBalance', [keys.address, 'latest'])) > 0n,
    30_000,
  );
  return keys;
}

/** Starts the flood: funds the attacker, then submits `count` looping deployments in nonce order. */
export async function startDeployFlood(
  target: { url: string; rpcUrl: string },
  opts: DeployFloodOpts = {},
): Promise<DeployFlood> {
  const from = opts.from ?? ATTACKER;
  const count = opts.count ?? 40;
  const keys = await fundedAttacker(target, opts.seed ?? `vm-deploy-flood/${Date.now()}`, from);
  const wallet = new Wallet(toHex(keys.secp256k1.privateKey));
  const stats: DeployFloodStats = { sent: 0, refused: [], ids: [], included: new Map(), blocks: [] };
  const first = Number(await rpc(from, target.rpcUrl, 'eth_getTransactionCount', [keys.address, 'pending']));
  const network = await networkOf(target.url);
  const submitted = (async () => {
    for (let i = 0; i < count; i++) {
      const nonce = first + i;
      const eth = opts.envelope === 'eth' || (opts.envelope !== 'hybrid' && i % 2 === 1);
      stats.sent++;
      if (eth) {
        const raw = await wallet.signTransaction({
          type: 0,
          chainId: network.chainId,
          nonce,
          to: null,
          data: LOOPING_INIT_CODE,
          value: 0n,
          gasLimit: VM_MAX_GAS,
          gasPrice: GAS_PRICE_WEI,
        });
        const r = await rpcFrom(from, target.rpcUrl, 'eth_sendRawTransaction', [raw]);
        if (r?.error) stats.refused.push(r.error.message);
        else stats.ids.push(r.result);
      } else {
        const tx = signTx(
          keys,
          {
            type: 'VM_DEPLOY',
            to: null,
            amount: '0',
            fee: '100000',
            nonce,
            data: { input: LOOPING_INIT_CODE, gasLimit: Number(VM_MAX_GAS) },
          },
          network,
        );
        const v = await post(from, `${target.url}/tx`, tx);
        if (v?.accepted) stats.ids.push(tx.id);
        else stats.refused.push(v?.error ?? v?.reason ?? JSON.stringify(v));
      }
    }
  })();
  return {
    submitted,
    async stop(timeoutMs = 120_000) {
      await submitted;
      const end = Date.now() + timeoutMs;
      while (stats.included.size < stats.ids.length && Date.now() < end) {
        for (const id of stats.ids) {
          if (stats.included.has(id)) continue;
          const r = await rpc(from, target.rpcUrl, 'eth_getTransactionReceipt', [id]).catch(() => null);
          if (r?.blockNumber) stats.included.set(id, Number(r.blockNumber));
        }
        if (stats.included.size < stats.ids.length) await new Promise((r) => setTimeout(r, 250));
      }
      const per = new Map<number, number>();
      for (const h of stats.included.values()) per.set(h, (per.get(h) ?? 0) + 1);
      for (const [height, deploys] of [...per].sort((a, b) => a[0] - b[0])) {
        const b = await rpc(from, target.rpcUrl, 'eth_getBlockByNumber', [`0x${height.toString(16)}`, false]);
        stats.blocks.push({ height, deploys, gasUsed: BigInt(b.gasUsed), gasLimit: BigInt(b.gasLimit) });
      }
      return stats;
    },
  };
}

/** Each committed block's production time (ms) by height, from the node's log ("block committed"). */
export function blockMs(output: string): Map<number, number> {
  const m = new Map<number, number>();
  for (const line of output.split('\n')) {
    if (!line.includes('"block committed"')) continue;
    try {
      const j = JSON.parse(line) as { height: number; ms: number };
      m.set(j.height, j.ms);
    } catch {
      /* not a JSON line */
    }
  }
  return m;
}

/**
 * blockMs once the node's log names every one of `heights`: a block is visible over HTTP
 * before its "block committed" line has crossed the pipe (the logger writes asynchronously),
 * so reading the log at once on a busy machine can miss the newest blocks.
 */
export async function blockMsOf(
  output: () => string,
  heights: Iterable<number>,
  timeoutMs = 15_000,
): Promise<Map<number, number>> {
  const want = [...heights];
  const end = Date.now() + timeoutMs;
  for (;;) {
    const ms = blockMs(output());
    if (want.every((h) => ms.has(h)) || Date.now() > end) return ms;
    await new Promise((r) => setTimeout(r, 50));
  }
}
