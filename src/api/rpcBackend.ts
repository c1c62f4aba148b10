import { GAS_PRICE_WEI, VM_MAX_GAS } from '../protocol/params';
import { TX } from '../protocol/txRefusals';
import { paramOf } from '../protocol/governable';
import type { Address } from '../protocol/types';
import { toHex, type Hex } from '../primitives/hex';
import type { RpcBackend, RpcCallMessage, RpcCallOutcome, RpcLog, RpcLogFilter, RpcTxLocation } from './rpcPort';
import { HeadMemo } from './headMemo';
import type { MaybePromise } from '../primitives/maybe';
import type { VmMessage } from '../vm/execute';
import { isVmCallRefusal, type VmCallPool } from '../vm/callPool';
import { weiBalance } from '../vm/units';
import type { Admission } from './admission';
import type { ChainReader } from './chainReader';
import type { ActorRef } from '../actors/actorRef';
import type { MempoolMsg, MempoolReplies } from '../actors/protocol';
import type { ChainStore } from '../storage/chainStore';

const ZERO_ADDRESS: Address = `0x${'00'.repeat(20)}`;

/** The node seen from the JSON-RPC layer: reads at a height, VM calls, and raw-tx admission. */
export class NodeRpcBackend implements RpcBackend {
  readonly chainId: number;

  constructor(
    private readonly d: {
      chainId: number;
      reader: ChainReader;
      store: ChainStore;
      mempool: ActorRef<MempoolMsg, MempoolReplies>;
      admission: Admission;
      clientVersion: string;
      producer: Address;
      now: () => number;
      vm: VmCallPool;
    },
  ) {
    this.chainId = d.chainId;
  }

  get clientVersion(): string {
    return this.d.clientVersion;
  }

  headHeight(): number {
    return this.d.reader.head.height;
  }

  finalizedHeight(): number {
    return this.d.reader.head.finalizedHeight;
  }

  historyFrom(): number {
    return this.d.reader.historyFrom;
  }

  stateFrom(): number {
    return this.d.reader.stateFrom;
  }

  private async rootAt(height: number): Promise<Hex> {
    if (height >= this.d.reader.head.height) return this.d.reader.head.stateRoot;
    const b = await this.d.store.summary(height);
    if (!b) throw new Error(`no block at height ${height}`);
    return (await this.d.reader.blockWithSize(height))!.block.header.stateRoot;
  }

  async block(ref: number | Hex) {
    const h = typeof ref === 'number' ? ref : await this.d.store.heightOfHash(ref.toLowerCase() as Hex);
    if (h === undefined || h > this.d.reader.head.height) return undefined;
    const b = await this.d.reader.blockWithSize(h);
    return b && { ...b, gasLimit: await this.gasLimitOfBlock(h) };
  }

  /**
   * The BLOCK_GAS_LIMIT block `h` was built under: the value in its parent's state (undefined if that state is gone).
   */
  private async gasLimitOfBlock(h: number): Promise<bigint | undefined> {
    try {
      return await paramOf(await this.d.reader.stateAt(await this.rootAt(Math.max(0, h - 1))), 'BLOCK_GAS_LIMIT');
    } catch {
      return undefined;
    }
  }

  /**
   * Reads and calls at the head, kept until the head moves: a wallet's or a dapp's polls of
   * the same balance or view call cost one trie read or one EVM run per block, not one per
   * request (bench/hardhat.ts). A call's context timestamp is then the one of its first run
   * in that head's slot.
   */
  private readonly atHead = new HeadMemo(() => this.d.reader.head);

  balanceWei(addr: Address, height: number): MaybePromise<bigint> {
    const read = async (root: Hex) => {
      const a = await (await this.d.reader.stateAt(root)).getAccount(addr);
      return a ? weiBalance(a) : 0n;
    };
    if (height >= this.headHeight())
      return this.atHead.get(`balance:${addr}`, () => read(this.d.reader.head.stateRoot));
    return this.rootAt(height).then(read);
  }

  async code(addr: Address, height: number): Promise<Hex> {
    return this.d.reader.code(addr, await this.rootAt(height));
  }

  async nonce(addr: Address, at: number | 'pending'): Promise<number> {
    const a = await (
      await this.d.reader.stateAt(await this.rootAt(at === 'pending' ? this.headHeight() : at))
    ).getAccount(addr);
    const n = a?.nonce ?? 0;
    return at === 'pending' ? this.d.mempool.ask({ type: 'nextNonce', address: addr, accountNonce: n }) : n;
  }

  async tx(hash: Hex): Promise<RpcTxLocation | undefined> {
    const loc = await this.d.store.txLocation(hash);
    if (loc) {
      const block = (await this.d.reader.blockWithSize(loc.height))?.block;
      const tx = block?.txs[loc.index];
      if (block && tx) {
        return {
          tx,
          block: {
            height: loc.height,
            hash: block.header.hash,
            index: loc.index,
            result: block.results[loc.index],
            timestamp: block.header.timestamp,
          },
        };
      }
    }
    const m = await this.d.mempool.ask({ type: 'lookup', id: hash });
    return m?.pending ? { tx: m.tx } : undefined;
  }

  async logs(f: RpcLogFilter): Promise<RpcLog[]> {
    const addrs = new Set(f.addresses);
    const found = await this.d.store.logs(
      f.fromHeight,
      f.toHeight,
      (l) => {
        if (addrs.size && !addrs.has(l.address)) return false;
        return f.topics.every(
          (want, i) => want === null || want.length === 0 || (l.topics[i] !== undefined && want.includes(l.topics[i])),
        );
      },
      f.limit,
    );
    const hashes = new Map<number, Hex>();
    const out: RpcLog[] = [];
    for (const l of found) {
      if (!hashes.has(l.blockHeight)) hashes.set(l.blockHeight, (await this.d.store.summary(l.blockHeight))!.hash);
      const block = (await this.d.reader.blockWithSize(l.blockHeight))?.block;
      out.push({
        address: l.address,
        topics: l.topics,
        data: l.data,
        blockHeight: l.blockHeight,
        blockHash: hashes.get(l.blockHeight)!,
        txHash: block!.txs[l.txIndex].id,
        txIndex: l.txIndex,
        logIndex: l.logIndex,
      });
    }
    return out;
  }

  private messageOf(m: RpcCallMessage, gasLimit: bigint): VmMessage {
    return {
      from: m.from ?? ZERO_ADDRESS,
      to: m.to ?? null,
      valueWei: m.valueWei ?? 0n,
      input: m.input ?? new Uint8Array(),
      gasLimit,
      gasPrice: m.gasPrice ?? GAS_PRICE_WEI,
    };
  }

  /** The context a call runs in: the block after the one it reads, as if produced now. */
  private ctx(height: number) {
    return {
      height: height + 1,
      timestamp: Math.max(this.d.now(), this.d.reader.head.timestamp + 1),
      producer: this.d.producer,
      chainId: this.d.chainId,
    };
  }

  /**
   * eth_call runs in the VM call pool (vm/callPool.ts), on the state at the height's root. A
   * refusal of the pool (queue full, over its time budget) is the caller's -32000 and is not
   * memoized: the same call may be served a moment later.
   */
  call(m: RpcCallMessage, height: number, caller?: string): MaybePromise<RpcCallOutcome> {
    if (height < this.headHeight()) return refusalAsOutcome(this.run(m, height, caller));
    const key =
      `call:${m.from ?? ''}:${m.to ?? ''}:${m.valueWei ?? ''}:` +
      `${m.gasLimit ?? ''}:${m.gasPrice ?? ''}:${m.input ? toHex(m.input) : ''}`;
    const r = this.atHead.get(key, () => this.run(m, this.headHeight(), caller));
    return r instanceof Promise ? refusalAsOutcome(r) : r;
  }

  private async run(m: RpcCallMessage, height: number, caller?: string): Promise<RpcCallOutcome> {
    const gas = m.gasLimit !== undefined && m.gasLimit < VM_MAX_GAS ? m.gasLimit : VM_MAX_GAS;
    const out = await this.d.vm.call(await this.rootAt(height), this.messageOf(m, gas), this.ctx(height), caller);
    if (out.status === 'success') return { ok: true as const, returnData: out.returnData, gasUsed: out.gasUsed };
    const error =
      out.revertReason !== undefined
        ? `execution reverted: ${out.revertReason}`
        : out.status === 'reverted'
          ? 'execution reverted'
          : (out.error ?? 'execution failed');
    return { ok: false as const, error, ...(out.returnData !== '0x' ? { returnData: out.returnData } : {}) };
  }

  async estimateGas(m: RpcCallMessage, caller?: string) {
    const height = this.headHeight();
    const { gasLimit: _g, ...rest } = this.messageOf(m, VM_MAX_GAS);
    const out = await refusalAsOutcome(this.d.vm.estimate(await this.rootAt(height), rest, this.ctx(height), caller));
    if ('gas' in out) return { ok: true as const, gas: out.gas };
    if ('ok' in out) return out;
    return { ok: false as const, error: out.error, ...(out.returnData ? { returnData: out.returnData } : {}) };
  }

  async sendRawTransaction(raw: Hex) {
    const out = await this.d.admission.submitRaw(raw);
    if (out.kind === 'verdict')
      return out.verdict.accepted
        ? { accepted: true as const, hash: out.verdict.id }
        : { accepted: false as const, reason: out.verdict.reason!, code: out.verdict.code! };
    return {
      accepted: false as const,
      reason: out.error,
      code: out.kind === 'malformed' ? out.code : TX.TX_UNAVAILABLE(out).code,
    };
  }

  gasPrice(): bigint {
    return GAS_PRICE_WEI;
  }
}

/**
 * The VM call pool's refusals (busy, over budget, crashed, stopping) as a failed outcome with their message; anything
 * else stays an error.
 */
function refusalAsOutcome<T>(p: Promise<T>): Promise<T | { ok: false; error: string }> {
  return p.catch((e: unknown) => {
    if (isVmCallRefusal(e)) return { ok: false as const, error: e.message };
    throw e;
  });
}
