import { keccakHex } from '../crypto/hash';
import { fromHex, type Hex } from '../primitives/hex';
import type { RpcBackend } from '../api/ports';
import { executionError, invalidParams } from './errors';
import { formatBlock, formatLog, formatReceipt, formatTx, hexQ, type FormatContext } from './format';
import { FEE_HISTORY_MAX_BLOCKS, FEE_HISTORY_MAX_PERCENTILES, LOGS_MAX_BLOCK_SPAN, LOGS_MAX_RESULTS } from './limits';
import * as P from './params';
import { andThen, type MaybePromise } from '../primitives/maybe';

/**
 * The 21 methods of the interface (docs/PROTOCOL.md "JSON-RPC (port 7070)"), over RpcBackend only.
 *
 * Block tags: `latest` and `pending` = the head (the backend has no pending state; `pending`
 * in eth_getTransactionCount asks backend.nonce(addr, 'pending') = nextNonce); `earliest` = 0;
 * `safe` and `finalized` = the finalized height.
 * A height above the head: eth_getBlockByNumber answers null, state reads answer -32000
 * "header not found" (geth's wording), eth_getLogs clamps toBlock to the head.
 */

/** A method's answer: at hand (the head's height, a memoized balance or call) or a promise. */
export type MethodHandler = (params: unknown[], caller?: string) => MaybePromise<unknown>;

/** Methods the spec lists as not implemented (-32601), with the reason shown to the caller. */
export const UNIMPLEMENTED_METHODS: ReadonlyMap<string, string> = new Map([
  ['eth_sendTransaction', 'the node holds no user key; sign locally and use eth_sendRawTransaction'],
  ['eth_sign', 'the node holds no user key; sign locally'],
  ['eth_signTransaction', 'the node holds no user key; sign locally'],
  ['eth_getStorageAt', 'not offered by Cairn'],
  ['eth_subscribe', 'Cairn pushes no events; poll eth_getLogs'],
  ['eth_unsubscribe', 'Cairn pushes no events; poll eth_getLogs'],
  ['eth_newFilter', 'no server-side filters; poll eth_getLogs'],
  ['eth_getFilterChanges', 'no server-side filters; poll eth_getLogs'],
]);

const ERROR_SELECTOR = '0x08c379a0'; // Error(string)
const PANIC_SELECTOR = '0x4e487b71'; // Panic(uint256)
const MAX_REASON_CHARS = 1_024;

/** The reason of an `Error(string)` or `Panic(uint256)` revert payload, if it is one. */
export function decodeRevertReason(data: Hex): string | undefined {
  const sel = data.slice(0, 10).toLowerCase();
  if (sel === PANIC_SELECTOR && data.length === 10 + 64)
    return `panic code 0x${BigInt(`0x${data.slice(10)}`).toString(16)}`;
  if (sel !== ERROR_SELECTOR) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = fromHex(data).subarray(4);
  } catch {
    return undefined;
  }
  const word = (at: number): bigint | undefined =>
    at + 32 <= bytes.length ? BigInt(`0x${Buffer.from(bytes.subarray(at, at + 32)).toString('hex')}`) : undefined;
  const offset = word(0);
  if (offset === undefined || offset > BigInt(bytes.length)) return undefined;
  const len = word(Number(offset));
  const start = Number(offset) + 32;
  if (len === undefined || BigInt(start) + len > BigInt(bytes.length)) return undefined;
  const text = new TextDecoder().decode(bytes.subarray(start, start + Number(len)));
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS)}…` : text;
}

/**
 * -32000 for a failed simulation. A revert reads "execution reverted[: reason]" and carries the
 * revert bytes as `data` (what ethers' and viem's revert decoding look for); other failures
 * (out of gas, insufficient balance, …) keep the backend's message.
 */
export function executionFailure(error: string, returnData?: Hex) {
  const reverted = /revert/i.test(error);
  if (!reverted)
    return executionError(error || 'execution failed', returnData && returnData !== '0x' ? returnData : undefined);
  const reason = returnData ? decodeRevertReason(returnData) : undefined;
  return executionError(
    reason !== undefined ? `execution reverted: ${reason}` : 'execution reverted',
    returnData ?? '0x',
  );
}

export function createMethods(backend: RpcBackend): Map<string, MethodHandler> {
  const ctx = (): FormatContext => ({ chainId: backend.chainId, gasPrice: backend.gasPrice() });

  /**
   * Height a block spec denotes, or undefined when there is no such block (at hand unless a block hash must be looked
   * up).
   */
  function heightOf(spec: P.BlockSpec, _argIndex: number): MaybePromise<number | undefined> {
    const head = backend.headHeight();
    if ('tag' in spec) {
      switch (spec.tag) {
        case 'latest':
        case 'pending':
          return head;
        case 'earliest':
          return 0;
        case 'safe':
        case 'finalized':
          return backend.finalizedHeight();
      }
    }
    if ('number' in spec) return spec.number > BigInt(head) ? undefined : Number(spec.number);
    return heightOfHash(spec);
  }

  async function heightOfHash(spec: Extract<P.BlockSpec, { hash: Hex }>): Promise<number | undefined> {
    const b = await backend.block(spec.hash);
    if (!b) return undefined;
    if (spec.requireCanonical) {
      const canon = await backend.block(b.block.header.height);
      if (!canon || canon.block.header.hash !== spec.hash) return undefined;
    }
    return b.block.header.height;
  }

  /** Height for a state read: a missing block is -32000 "header not found", a pruned one says so. */
  function stateHeight(v: unknown, argIndex: number): MaybePromise<number> {
    return andThen(heightOf(P.blockSpec(v, argIndex), argIndex), (h) => {
      if (h === undefined) throw executionError('header not found');
      const from = backend.stateFrom();
      if (h < from) throw executionError(`state pruned: this node keeps state from block ${from} (asked ${h})`);
      return h;
    });
  }

  /** A read below the history this node keeps (--history): -32000 naming the first height it has. */
  function prunedRefusal(height: number): void {
    const from = backend.historyFrom();
    if (height > 0 && height < from)
      throw executionError(`history pruned: this node keeps history from block ${from} (asked ${height})`);
  }

  const noParams =
    (f: () => unknown): MethodHandler =>
    (params) => {
      P.checkArity(params, 0, 0);
      return f();
    };

  const methods: [string, MethodHandler][] = [
    ['web3_clientVersion', noParams(() => backend.clientVersion)],
    ['net_version', noParams(() => String(backend.chainId))],
    ['net_listening', noParams(() => true)],
    ['eth_chainId', noParams(() => hexQ(backend.chainId))],
    ['eth_syncing', noParams(() => false)],
    ['eth_accounts', noParams(() => [])],
    ['eth_blockNumber', noParams(() => hexQ(backend.headHeight()))],
    ['eth_gasPrice', noParams(() => hexQ(backend.gasPrice()))],
    ['eth_maxPriorityFeePerGas', noParams(() => '0x0')],

    [
      'eth_getBalance',
      (params) => {
        P.checkArity(params, 1, 2);
        const addr = P.address(params[0], 0);
        return andThen(
          andThen(stateHeight(params[1], 1), (h) => backend.balanceWei(addr, h)),
          hexQ,
        );
      },
    ],

    [
      'eth_getCode',
      async (params) => {
        P.checkArity(params, 1, 2);
        const addr = P.address(params[0], 0);
        return await backend.code(addr, await stateHeight(params[1], 1));
      },
    ],

    [
      'eth_getTransactionCount',
      async (params) => {
        P.checkArity(params, 1, 2);
        const addr = P.address(params[0], 0);
        const spec = P.blockSpec(params[1], 1);
        if ('tag' in spec && spec.tag === 'pending') return hexQ(await backend.nonce(addr, 'pending'));
        const h = await heightOf(spec, 1);
        if (h === undefined) throw executionError('header not found');
        return hexQ(await backend.nonce(addr, h));
      },
    ],

    [
      'eth_feeHistory',
      async (params) => {
        P.checkArity(params, 2, 3);
        const requested = P.blockCount(params[0], 0);
        const newest = await heightOf(P.blockSpec(params[1], 1), 1);
        if (newest === undefined) throw executionError(`request beyond head block: head is ${backend.headHeight()}`);
        const percentiles = P.percentiles(params[2], 2, FEE_HISTORY_MAX_PERCENTILES);
        const count = Math.min(requested, newest + 1, FEE_HISTORY_MAX_BLOCKS);
        if (count === 0)
          return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [], ...(percentiles ? { reward: [] } : {}) };
        const price = hexQ(backend.gasPrice());
        return {
          oldestBlock: hexQ(newest - count + 1),
          baseFeePerGas: Array.from({ length: count + 1 }, () => price),
          gasUsedRatio: Array.from({ length: count }, () => 0),
          ...(percentiles ? { reward: Array.from({ length: count }, () => percentiles.map(() => '0x0')) } : {}),
        };
      },
    ],

    [
      'eth_estimateGas',
      async (params, caller) => {
        // The spec lists [callObject]; viem may add a block, which must denote the head.
        P.checkArity(params, 1, 2);
        const msg = P.callObject(params[0], 0);
        if (params.length > 1) {
          const h = await heightOf(P.blockSpec(params[1], 1), 1);
          if (h !== backend.headHeight())
            throw invalidParams('invalid argument 1: eth_estimateGas runs at the head only; use "latest"');
        }
        const r = await backend.estimateGas(msg, caller);
        if (!r.ok) throw executionFailure(r.error, r.returnData);
        return hexQ(r.gas);
      },
    ],

    [
      'eth_call',
      (params, caller) => {
        P.checkArity(params, 1, 2);
        const msg = P.callObject(params[0], 0);
        return andThen(
          andThen(stateHeight(params[1], 1), (h) => backend.call(msg, h, caller)),
          (r) => {
            if (!r.ok) throw executionFailure(r.error, r.returnData);
            return r.returnData;
          },
        );
      },
    ],

    [
      'eth_getBlockByNumber',
      async (params) => {
        P.checkArity(params, 2, 2);
        const spec = P.blockSpec(params[0], 0);
        if ('hash' in spec) throw invalidParams('invalid argument 0: use eth_getBlockByHash for a block hash');
        const full = P.bool(params[1], 1, 'fullTransactions');
        const h = await heightOf(spec, 0);
        if (h === undefined) return null;
        const b = await backend.block(h);
        return b ? formatBlock(b.block, b.size, full, { ...ctx(), blockGasLimit: b.gasLimit }) : null;
      },
    ],

    [
      'eth_getBlockByHash',
      async (params) => {
        P.checkArity(params, 2, 2);
        const hash = P.hash(params[0], 0, 'block hash');
        const full = P.bool(params[1], 1, 'fullTransactions');
        const b = await backend.block(hash);
        return b && b.block.header.hash === hash
          ? formatBlock(b.block, b.size, full, { ...ctx(), blockGasLimit: b.gasLimit })
          : null;
      },
    ],

    [
      'eth_getTransactionByHash',
      async (params) => {
        P.checkArity(params, 1, 1);
        const hash = P.hash(params[0], 0, 'transaction hash');
        const loc = await backend.tx(hash);
        if (!loc) return null;
        return formatTx(
          loc.tx,
          loc.block ? { height: loc.block.height, hash: loc.block.hash, index: loc.block.index } : undefined,
          ctx(),
        );
      },
    ],

    [
      'eth_getTransactionReceipt',
      async (params) => {
        P.checkArity(params, 1, 1);
        const hash = P.hash(params[0], 0, 'transaction hash');
        const loc = await backend.tx(hash);
        if (!loc?.block) return null;
        const b = await backend.block(loc.block.hash);
        if (!b) return null;
        const txs = b.block.txs;
        const index = txs[loc.block.index]?.id === hash ? loc.block.index : txs.findIndex((t) => t.id === hash);
        return index < 0 ? null : formatReceipt(b.block, index, ctx());
      },
    ],

    [
      'eth_getLogs',
      async (params) => {
        P.checkArity(params, 1, 1);
        const f = P.logFilter(params[0], 0);
        let fromHeight: number;
        let toHeight: number;
        if (f.blockHash) {
          const b = await backend.block(f.blockHash);
          if (!b || b.block.header.hash !== f.blockHash) throw executionError('unknown block');
          fromHeight = toHeight = b.block.header.height;
        } else {
          const head = backend.headHeight();
          const resolve = async (spec: P.BlockSpec): Promise<number> => {
            if ('number' in spec)
              return spec.number > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(spec.number);
            return (await heightOf(spec, 0)) ?? head;
          };
          fromHeight = await resolve(f.from);
          const toAsked = await resolve(f.to);
          if (fromHeight > toAsked) throw invalidParams('invalid argument 0: fromBlock is after toBlock');
          // The span limit is on the range asked for, not on what a short chain holds of it:
          // the same query must not work today and fail once the chain has grown.
          if (toAsked - fromHeight + 1 > LOGS_MAX_BLOCK_SPAN) {
            throw invalidParams(
              `invalid argument 0: block range exceeds ${LOGS_MAX_BLOCK_SPAN} blocks ` +
                `(asked ${toAsked - fromHeight + 1}); split the query`,
            );
          }
          toHeight = Math.min(toAsked, head);
          if (fromHeight > toHeight) return [];
          prunedRefusal(fromHeight);
        }
        const logs = await backend.logs({
          fromHeight,
          toHeight,
          addresses: f.addresses,
          topics: f.topics,
          limit: LOGS_MAX_RESULTS + 1,
        });
        if (logs.length > LOGS_MAX_RESULTS) {
          throw executionError(
            `query returned more than ${LOGS_MAX_RESULTS} results; narrow the block range or the filter`,
          );
        }
        return (f.blockHash ? logs.filter((l) => l.blockHash === f.blockHash) : logs).map(formatLog);
      },
    ],

    [
      'eth_sendRawTransaction',
      async (params) => {
        P.checkArity(params, 1, 1);
        const raw = P.data(params[0], 0, 'raw transaction');
        if (raw === '0x') throw invalidParams('invalid argument 0: raw transaction is empty');
        const r = await backend.sendRawTransaction(raw);
        if (r.accepted) return r.hash;
        // Resending a transaction the node already holds is not an error (the interface's refusal
        // reasons): answer its hash, so a client's retry converges instead of failing.
        if (r.code === 'TX_KNOWN') return keccakHex(fromHex(raw));
        throw executionError(r.reason);
      },
    ],
  ];
  return new Map(methods);
}
