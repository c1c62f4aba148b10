import { keccak256, keccakHex } from '../crypto/hash';
import { canonicalJson } from '../primitives/canonical';
import { fromHex, toHex, utf8, type Hex } from '../primitives/hex';
import type { Address, Block, HybridTx, LogEntry, SignedTx, TxResult } from '../protocol/types';
import { decodeEthFields } from '../api/ethFields';
import type { RpcLog } from '../api/ports';
import { BLOCK_GAS_LIMIT, NATIVE_TX_GAS } from './limits';
import { isRecord } from '../primitives/record';

/**
 * Ethereum JSON shapes (blocks, transactions, receipts, logs) that ethers v6 and viem 2
 * parse. Every quantity is minimal hex (`0x0`, `0x1a`), every address and hash lower-case.
 *
 * Mapping choices (docs/PROTOCOL.md "JSON-RPC (port 7070)"):
 * - block `hash` / `parentHash` are the Cairn block hashes (the same values as /blocks);
 *   `transactionsRoot` is the header's txRoot, `stateRoot` the header's stateRoot;
 * - `receiptsRoot` = keccak256 of the RFC 8785 JSON of the block's `results` array (the
 *   consensus record of outcomes): deterministic, not an Ethereum receipts trie;
 * - `timestamp` = floor(header.timestamp ms / 1000); `miner` = the producer;
 * - `baseFeePerGas` = the fixed gas price, so the EIP-1559 arithmetic of ethers
 *   (getFeeData: maxFee = 2 × base + tip) and viem (estimateFeesPerGas: 1.2 × base + tip)
 *   yields a maxFeePerGas at or above the price Cairn charges, and the priority fee is 0;
 * - `gasLimit` = the BLOCK_GAS_LIMIT the block was built under (the VM budget, docs/PROTOCOL.md
 *   "Block gas"); `gasUsed` = the sum of its VM transactions' receipts' gasUsed (what the
 *   budget bounds: never above gasLimit);
 * - native (non-VM) transactions report gas 21,000 and gasUsed 21,000 (what a value transfer
 *   costs on Ethereum); the real cost is in energy and burn, on `GET /tx/:id`.
 */

export interface FormatContext {
  chainId: number;
  gasPrice: bigint;
  /** The block's BLOCK_GAS_LIMIT (formatBlock); the parameter's default when unknown. */
  blockGasLimit?: bigint;
}

export interface TxLocation {
  height: number;
  hash: Hex;
  index: number;
}

export const hexQ = (n: bigint | number): Hex => `0x${n.toString(16)}`;

const ZERO32: Hex = `0x${'00'.repeat(32)}`;
/** keccak256(rlp([])): the uncle hash of every post-merge block. */
export const EMPTY_UNCLES_HASH: Hex = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
export const BLOCK_NONCE: Hex = '0x0000000000000000';
const WEI_PER_BASE_UNIT = 10n ** 12n;

// ---------------------------------------------------------------------------------------------
// Bloom filter (Yellow Paper M3:2048): for the address and each topic of every log, set three
// bits chosen by the first three byte pairs of keccak256(item), each taken mod 2048.

export function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i] << 8) | h[i + 1]) & 0x7ff;
    bloom[255 - (bit >> 3)] |= 1 << (bit & 7);
  }
}

export function logsBloom(logs: Iterable<LogEntry>): Hex {
  const bloom = new Uint8Array(256);
  for (const log of logs) {
    addToBloom(bloom, fromHex(log.address));
    for (const t of log.topics) addToBloom(bloom, fromHex(t));
  }
  return toHex(bloom);
}

/** True when `item` may be in the bloom (used by tests and by clients). */
export function bloomMayContain(bloomHex: Hex, item: Uint8Array): boolean {
  const probe = new Uint8Array(256);
  addToBloom(probe, item);
  const bloom = fromHex(bloomHex);
  return probe.every((b, i) => (bloom[i] & b) === b);
}

// ---------------------------------------------------------------------------------------------
// Ethereum transactions: `raw` is the authority; decode it once for the signature and fee fields.

// ---------------------------------------------------------------------------------------------
// Hybrid transactions born on the native API.

/**
 * The VM view of a hybrid VM_CALL / VM_DEPLOY: `data.gasLimit` (decimal string, safe integer
 * or hex quantity) and `data.input` (hex; `data.code` accepted for VM_DEPLOY). Anything else,
 * and every non-VM type, reads as 21,000 gas and empty input.
 */
export function hybridVmView(tx: HybridTx): { gas: bigint; input: Hex } {
  if ((tx.type !== 'VM_CALL' && tx.type !== 'VM_DEPLOY') || !isRecord(tx.data))
    return { gas: NATIVE_TX_GAS, input: '0x' };
  const d = tx.data;
  let gas = NATIVE_TX_GAS;
  const g = d.gasLimit;
  if (typeof g === 'number' && Number.isSafeInteger(g) && g >= 0) gas = BigInt(g);
  else if (typeof g === 'string' && (/^(0|[1-9][0-9]{0,30})$/.test(g) || /^0x[0-9a-fA-F]{1,32}$/.test(g)))
    gas = BigInt(g);
  const rawInput = d.input ?? (tx.type === 'VM_DEPLOY' ? d.code : undefined);
  const input: Hex =
    typeof rawInput === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(rawInput)
      ? `0x${rawInput.slice(2).toLowerCase()}`
      : '0x';
  return { gas, input };
}

/** Gas a transaction used, as a receipt reports it. */
export function gasUsedOf(tx: SignedTx, result: TxResult | undefined): bigint {
  if (result?.vm) return BigInt(result.vm.gasUsed);
  if (tx.envelope === 'eth') {
    const limit = BigInt(tx.gasLimit);
    return limit < NATIVE_TX_GAS ? limit : NATIVE_TX_GAS;
  }
  return NATIVE_TX_GAS;
}

/** eth_getTransactionByHash shape; `loc` undefined = pending (blockHash/blockNumber/transactionIndex null). */
export function formatTx(tx: SignedTx, loc: TxLocation | undefined, ctx: FormatContext): Record<string, unknown> {
  const where = {
    blockHash: loc ? loc.hash : null,
    blockNumber: loc ? hexQ(loc.height) : null,
    transactionIndex: loc ? hexQ(loc.index) : null,
  };
  if (tx.envelope === 'eth') {
    const d = decodeEthFields(tx);
    const type = d?.type ?? 0;
    const out: Record<string, unknown> = {
      hash: tx.id,
      ...where,
      type: hexQ(type),
      from: tx.from,
      to: tx.to ?? null,
      nonce: hexQ(tx.nonce),
      value: hexQ(BigInt(tx.valueWei)),
      gas: hexQ(BigInt(tx.gasLimit)),
      gasPrice: hexQ(BigInt(tx.gasPrice)),
      input: tx.input,
      chainId: hexQ(ctx.chainId),
      v: '0x0',
      r: '0x0',
      s: '0x0',
      ...(d?.fields ?? {}),
    };
    // Like geth: a mined fee-market transaction shows the price it paid; Cairn's is fixed.
    if (type >= 2 && loc) out.gasPrice = hexQ(ctx.gasPrice);
    return out;
  }
  const vm = hybridVmView(tx);
  // No Ethereum signature exists (the hybrid signatures cover the canonical payload, not an
  // RLP transaction): r = s = 0, and v is the EIP-155 value for chain 72020 and recovery id 0,
  // which ethers reads as chainId 72020 and viem as yParity 0.
  return {
    hash: tx.id,
    ...where,
    type: '0x0',
    from: tx.from,
    to: tx.to ?? null,
    nonce: hexQ(tx.nonce),
    value: hexQ(BigInt(tx.amount) * WEI_PER_BASE_UNIT),
    gas: hexQ(vm.gas),
    gasPrice: hexQ(ctx.gasPrice),
    input: vm.input,
    chainId: hexQ(ctx.chainId),
    v: hexQ(BigInt(ctx.chainId) * 2n + 35n),
    r: '0x0',
    s: '0x0',
  };
}

// ---------------------------------------------------------------------------------------------
// Receipts and logs

export function formatLog(l: RpcLog): Record<string, unknown> {
  return {
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockNumber: hexQ(l.blockHeight),
    blockHash: l.blockHash,
    transactionHash: l.txHash,
    transactionIndex: hexQ(l.txIndex),
    logIndex: hexQ(l.logIndex),
    removed: false,
  };
}

/**
 * eth_getTransactionReceipt shape for the transaction at `index` of `block`: cumulativeGasUsed
 * and the block-wide logIndex come from the transactions before it.
 */
export function formatReceipt(block: Block, index: number, ctx: FormatContext): Record<string, unknown> {
  const { height, hash } = block.header;
  let cumulative = 0n;
  let logIndex = 0;
  for (let i = 0; i < index; i++) {
    cumulative += gasUsedOf(block.txs[i], block.results[i]);
    logIndex += block.results[i]?.vm?.logs.length ?? 0;
  }
  const tx = block.txs[index];
  const result = block.results[index];
  const gasUsed = gasUsedOf(tx, result);
  const entries = result?.vm?.logs ?? [];
  const type = tx.envelope === 'eth' ? (decodeEthFields(tx)?.type ?? 0) : 0;
  return {
    transactionHash: tx.id,
    transactionIndex: hexQ(index),
    blockHash: hash,
    blockNumber: hexQ(height),
    from: tx.from,
    to: tx.to ?? null,
    cumulativeGasUsed: hexQ(cumulative + gasUsed),
    gasUsed: hexQ(gasUsed),
    effectiveGasPrice: hexQ(ctx.gasPrice),
    contractAddress: result?.vm?.contractAddress ?? null,
    logs: entries.map((l, k) =>
      formatLog({ ...l, blockHeight: height, blockHash: hash, txHash: tx.id, txIndex: index, logIndex: logIndex + k }),
    ),
    logsBloom: logsBloom(entries),
    status: result?.status === 'success' ? '0x1' : '0x0',
    type: hexQ(type),
  };
}

// ---------------------------------------------------------------------------------------------
// Blocks

function receiptsRoot(results: TxResult[]): Hex {
  try {
    return keccakHex(utf8(canonicalJson(results)));
  } catch {
    return keccakHex(utf8(JSON.stringify(results)));
  }
}

export function formatBlock(block: Block, size: number, fullTxs: boolean, ctx: FormatContext): Record<string, unknown> {
  const h = block.header;
  let gasUsed = 0n;
  // native transactions are outside the VM budget
  for (const r of block.results) if (r?.vm) gasUsed += BigInt(r.vm.gasUsed);
  const allLogs: LogEntry[] = [];
  for (const r of block.results) if (r?.vm) allLogs.push(...r.vm.logs);
  return {
    number: hexQ(h.height),
    hash: h.hash,
    parentHash: h.parentHash,
    nonce: BLOCK_NONCE,
    sha3Uncles: EMPTY_UNCLES_HASH,
    logsBloom: logsBloom(allLogs),
    transactionsRoot: h.txRoot,
    stateRoot: h.stateRoot,
    receiptsRoot: receiptsRoot(block.results),
    miner: h.producer as Address,
    difficulty: '0x0',
    totalDifficulty: '0x0',
    extraData: '0x',
    size: hexQ(size),
    gasLimit: hexQ(ctx.blockGasLimit ?? BLOCK_GAS_LIMIT),
    gasUsed: hexQ(gasUsed),
    timestamp: hexQ(Math.floor(h.timestamp / 1000)),
    transactions: fullTxs
      ? block.txs.map((tx, index) => formatTx(tx, { height: h.height, hash: h.hash, index }, ctx))
      : block.txs.map((tx) => tx.id),
    uncles: [],
    baseFeePerGas: hexQ(ctx.gasPrice),
    mixHash: ZERO32,
  };
}
