import { type EVM, EVMError, type EVMResult, type Message } from '@ethereumjs/evm';
import { Address as EthAddress, bigIntToBytes, createAddressFromBigInt, setLengthLeft } from '@ethereumjs/util';
import { newAccount } from '../protocol/accounts';
import { CHAIN_ID } from '../protocol/params';
import type { ExecState } from '../protocol/execState';
import type { Address } from '../protocol/types';
import { keccak256 } from '../crypto/hash';
import { type Hex, fromHex, isHex, toHex } from '../primitives/hex';
import { MAX_REFUND_QUOTIENT, VM_BLOCK_GAS_LIMIT, VM_MAX_GAS, createCairnEvm } from './common';
import { type AccessListEntry, intrinsicGas, maxInitCodeSize } from './intrinsic';
import { EvmStateAdapter } from './stateAdapter';
import { weiBalance } from './units';

export interface VmBlockContext {
  height: number;
  timestamp: number; // ms; EVM TIMESTAMP = floor(ms / 1000)
  producer: Address; // COINBASE
  /** The chain's id, what CHAINID returns (its chain specification's); the development network's 72020 when absent. */
  chainId?: number;
}

export interface VmMessage {
  from: Address;
  to: Address | null; // null = contract creation
  valueWei: bigint;
  input: Uint8Array;
  gasLimit: bigint;
  gasPrice: bigint; // wei, what GASPRICE returns; nothing is charged from it here
  accessList?: AccessListEntry[];
}

export interface VmLog {
  address: Address;
  topics: Hex[];
  data: Hex;
}

/** Value moved by VM execution other than the transaction's own transfer. */
export interface InternalTransfer {
  kind: 'CALL' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT';
  from: Address;
  to: Address;
  valueWei: bigint;
}

export interface VmOutcome {
  status: 'success' | 'reverted' | 'failed';
  /**
   * Total incl. intrinsic, after refund and the EIP-7623 floor: what the receipt shows. 0 when refused before
   * execution.
   */
  gasUsed: bigint;
  /** Before refund (and at least the floor). */
  gasPeak: bigint;
  returnData: Hex;
  /** 'execution reverted', 'out of gas', 'insufficient balance', 'intrinsic gas too low', … */
  error?: string;
  /** Decoded Error(string) revert payload. */
  revertReason?: string;
  createdAddress?: Address;
  logs: VmLog[];
  /** Value moved by inner messages (depth > 0) and SELFDESTRUCTs that survived, in execution order. */
  internal: InternalTransfer[];
}

export const ERR_REVERTED = 'execution reverted';
/** The EVM's own word for running out of gas (the library's, kept as it says it). */
export const ERR_OUT_OF_GAS: string = EVMError.errorMessages.OUT_OF_GAS;
export const ERR_INTRINSIC = 'intrinsic gas too low';
export const ERR_GAS_CAP = `gas limit above VM_MAX_GAS ${VM_MAX_GAS}`;
export const ERR_INITCODE = 'max initcode size exceeded';
export const ERR_BALANCE = 'insufficient balance';
export const ERR_NOT_EOA = 'sender not an eoa';
export const ERR_ALLOWANCE = `gas required exceeds allowance (${VM_MAX_GAS})`;

/**
 * Runs one transaction's EVM part against `state`.
 *
 * The caller (applyTx) has already: checked and incremented the sender's nonce (so a
 * top-level CREATE derives its address from nonce - 1, as @ethereumjs/evm does), and
 * charged fees/energy. executeVm touches neither nonce nor fees.
 *
 * Refused before execution — status 'failed', gasUsed 0, state untouched:
 *   gasLimit > VM_MAX_GAS ('gas limit above VM_MAX_GAS 5190000'), creation initcode over the
 *   EIP-3860 limit ('max initcode size exceeded'), gasLimit < max(intrinsic, EIP-7623 floor)
 *   ('intrinsic gas too low'), a sender with code ('sender not an eoa', EIP-3607), value above
 *   the sender's wei balance ('insufficient balance').
 *   geth never includes such transactions; applyTx should treat them as a skip, not a receipt.
 * Otherwise: 'success', or 'reverted' / 'failed' with every EVM state change undone (the value
 * transfer included) and gasUsed reported.
 *
 * Differences from Ethereum, all conservative: no EIP-161 sweep of pre-existing accounts
 * (see EvmStateAdapter); SELFDESTRUCT never burns value — a contract that self-destructs
 * in its creating transaction loses code, storage and nonce but keeps any balance left on
 * it (what EIP-8246 specifies); BLOCKHASH returns 0; PREVRANDAO = keccak256(height as 32
 * bytes) — public, not randomness; BASEFEE 0; BLOBBASEFEE 1; GASLIMIT VM_BLOCK_GAS_LIMIT.
 */
export async function executeVm(state: ExecState, msg: VmMessage, ctx: VmBlockContext): Promise<VmOutcome> {
  return execute(state, msg, ctx, true);
}

async function execute(state: ExecState, m: VmMessage, c: VmBlockContext, eoaOnly: boolean): Promise<VmOutcome> {
  checkContext(c);
  // Lower-case hex everywhere: the EVM journal compares unprefixed lower-case hex (warm sets).
  const msg = normalizeMessage(m);
  const ctx = { ...c, producer: c.producer.toLowerCase() as Address };
  if (msg.gasLimit > VM_MAX_GAS) return refused(ERR_GAS_CAP);
  if (msg.to === null && msg.input.length > maxInitCodeSize()) return refused(ERR_INITCODE);
  const accessList = normalizeAccessList(msg.accessList);
  if (accessList === null) return refused('invalid access list');
  const gas = intrinsicGas({ to: msg.to, input: msg.input, accessList });
  if (msg.gasLimit < gas.minimum) return refused(ERR_INTRINSIC);
  if (msg.valueWei < 0n) return refused('negative value');

  const vm = await acquire(ctx.chainId ?? CHAIN_ID);
  vm.adapter.bind(state, ctx.height);
  // An instance an exception escaped from is dropped, not pooled: its EVM may be mid-frame.
  const sender = await vm.adapter.getAccountState(msg.from);
  if (eoaOnly && sender?.codeHash) {
    release(vm);
    return refused(ERR_NOT_EOA); // EIP-3607
  }
  if (msg.valueWei > (sender === undefined ? 0n : weiBalance(sender))) {
    release(vm);
    return refused(ERR_BALANCE);
  }
  const out = await run(vm, state, msg, ctx, accessList, gas);
  release(vm);
  return out;
}

/**
 * eth_call: executes like a transaction (the sender's nonce is advanced first, as a real
 * transaction would have it) inside a checkpoint that is ALWAYS reverted: the state root is
 * unchanged afterwards. `from` may be any address, even one that does not exist.
 */
export async function callVm(state: ExecState, msg: VmMessage, ctx: VmBlockContext): Promise<VmOutcome> {
  checkContext(ctx);
  normalizeMessage(msg);
  state.checkpoint();
  try {
    const a = (await state.getAccount(msg.from)) ?? newAccount(ctx.height);
    await state.putAccount(msg.from, { ...a, nonce: a.nonce + 1 });
    return await execute(state, msg, ctx, false); // like geth's eth_call: any sender, even a contract
  } finally {
    await state.revert();
  }
}

export type GasEstimate = { gas: bigint } | { error: string; returnData?: Hex };

/**
 * Gas the search of one estimate may run in all after its first run at the cap: a bound on
 * its cost whatever the call (about two more runs of a call that uses the whole cap, and far
 * more than an exact bisection of any ordinary call needs).
 */
export const ESTIMATE_SEARCH_GAS = 2n * VM_MAX_GAS;

/**
 * eth_estimateGas: the lowest gasLimit in [max(intrinsic, floor), VM_MAX_GAS] at which the
 * call succeeds, found like geth (one run at the cap, then the peak it used, an optimistic
 * guess of (peak + 2300) × 64/63, then bisection — here to the exact gas unit, not geth's 1.5%).
 * Because success is what is searched for, the answer covers the peak use before refunds
 * and the 63/64 rule. Runs on callVm, so state is left unchanged.
 *
 * Bounded: no limit is run twice, most calls are settled by the run at their peak (they
 * need exactly it), and the search stops once it has run ESTIMATE_SEARCH_GAS, answering the
 * lowest limit seen to succeed (never one that fails).
 */
export async function estimateGas(
  state: ExecState,
  msg: Omit<VmMessage, 'gasLimit'>,
  ctx: VmBlockContext,
): Promise<GasEstimate> {
  const runs = new Map<bigint, VmOutcome>();
  let spent = 0n;
  const at = async (gasLimit: bigint): Promise<VmOutcome> => {
    let out = runs.get(gasLimit);
    if (!out) {
      out = await callVm(state, { ...msg, gasLimit }, ctx);
      runs.set(gasLimit, out);
      spent += out.gasPeak;
    }
    return out;
  };
  const top = await at(VM_MAX_GAS);
  if (top.status !== 'success') {
    // geth's wording
    if (top.error === ERR_INTRINSIC || top.error === EVMError.errorMessages.OUT_OF_GAS) return { error: ERR_ALLOWANCE };
    return top.status === 'reverted'
      ? { error: top.error ?? ERR_REVERTED, returnData: top.returnData }
      : { error: top.error ?? 'execution failed' };
  }
  spent = 0n;
  const accessList = normalizeAccessList(msg.accessList) ?? [];
  const minimum = intrinsicGas({ to: msg.to, input: msg.input, accessList }).minimum;
  // Below the peak the call cannot have had the gas it used (geth's lower bound).
  let lo = (top.gasPeak > minimum ? top.gasPeak : minimum) - 1n;
  let hi = VM_MAX_GAS;
  // A call that forwards no gas by the 63/64 rule (and reads no GAS) needs exactly its peak.
  if (lo + 1n < hi) {
    if ((await at(lo + 1n)).status === 'success') return { gas: lo + 1n };
    lo++;
  }
  const optimistic = ((top.gasPeak + CALL_STIPEND) * 64n) / 63n;
  if (optimistic > lo && optimistic < hi) {
    if ((await at(optimistic)).status === 'success') hi = optimistic;
    else lo = optimistic;
  }
  while (lo + 1n < hi && spent < ESTIMATE_SEARCH_GAS) {
    let mid = (lo + hi) / 2n;
    if (mid > lo * 2n) mid = lo * 2n; // geth: most calls need little; converge from below fast
    if ((await at(mid)).status === 'success') hi = mid;
    else lo = mid;
  }
  return { gas: hi };
}

const CALL_STIPEND = 2300n;

// ---- execution --------------------------------------------------------------------------

interface PooledVm {
  evm: EVM;
  adapter: EvmStateAdapter;
  tracer: Tracer;
  /** The chain id its Common answers CHAINID with: instances are pooled per chain id. */
  chainId: number;
}

/**
 * Building an EVM costs ~2 ms (opcode tables, precompiles), more than a token transfer, so
 * instances are pooled; each is used by one execution at a time (concurrent calls — e.g. an
 * eth_call during block execution — take different instances).
 */
const pools = new Map<number, PooledVm[]>();

async function acquire(chainId: number): Promise<PooledVm> {
  return pools.get(chainId)?.pop() ?? (await newPooledVm(chainId));
}

const POOL_MAX = 8;

function release(vm: PooledVm): void {
  vm.tracer.reset();
  vm.adapter.bind(PLACEHOLDER_STATE, 0); // hold no reference to the caller's state
  let pool = pools.get(vm.chainId);
  if (!pool) pools.set(vm.chainId, (pool = []));
  if (pool.length < POOL_MAX) pool.push(vm);
}

async function newPooledVm(chainId: number): Promise<PooledVm> {
  const adapter = new EvmStateAdapter(PLACEHOLDER_STATE, 0);
  const evm = await createCairnEvm(adapter, chainId);
  const tracer = new Tracer();
  evm.events.on('beforeMessage', (m: Message) => tracer.before(m));
  evm.events.on('afterMessage', (r: EVMResult) => tracer.after(r));
  wrapSelfdestruct(evm, tracer, adapter);
  return { evm, adapter, tracer, chainId };
}

const PLACEHOLDER_STATE: ExecState = new Proxy({} as ExecState, {
  get() {
    throw new Error('EvmStateAdapter used before bind()');
  },
});

async function run(
  vm: PooledVm,
  state: ExecState,
  msg: VmMessage,
  ctx: VmBlockContext,
  accessList: AccessListEntry[],
  gas: { intrinsic: bigint; floor: bigint },
): Promise<VmOutcome> {
  const { evm, adapter, tracer } = vm;
  adapter.beginTx();
  evm.journal.cleanJournal();
  evm.transientStorage.clear();
  tracer.reset();

  const caller = new EthAddress(fromHex(msg.from));
  const to = msg.to === null ? undefined : new EthAddress(fromHex(msg.to));
  const coinbase = new EthAddress(fromHex(ctx.producer));
  // What @ethereumjs/vm runTx warms (EIP-2929/2930/3651): precompiles, origin, target, coinbase, access list.
  const journal = evm.journal;
  for (const [address] of evm.precompiles) journal.addAlwaysWarmAddress(address);
  journal.addAlwaysWarmAddress(msg.from);
  if (msg.to !== null) journal.addAlwaysWarmAddress(msg.to);
  journal.addAlwaysWarmAddress(ctx.producer);
  for (const e of accessList) {
    journal.addAlwaysWarmAddress(e.address, true);
    for (const k of e.storageKeys) journal.addAlwaysWarmSlot(e.address, k, true);
  }

  state.checkpoint();
  let result: EVMResult;
  try {
    result = await evm.runCall({
      block: blockOf(ctx, coinbase),
      gasPrice: msg.gasPrice,
      origin: caller,
      caller,
      to,
      value: msg.valueWei,
      data: msg.input,
      gasLimit: msg.gasLimit - gas.intrinsic,
      skipNonceIncrement: true, // applyTx advanced it
    });
    const exec = result.execResult;
    if (!exec.exceptionError) await finishSelfdestructs(adapter, exec.selfdestruct, exec.createdAddresses);
    await state.commit();
  } catch (e) {
    await adapter.unwind();
    await state.revert();
    throw e; // an adapter/store failure, not a transaction outcome
  } finally {
    evm.journal.cleanJournal();
  }

  const exec = result.execResult;
  const executionGas = exec.executionGasUsed;
  const peak = gas.intrinsic + executionGas;
  let refund = exec.exceptionError ? 0n : (exec.gasRefund ?? 0n);
  if (refund > peak / MAX_REFUND_QUOTIENT) refund = peak / MAX_REFUND_QUOTIENT;
  let used = peak - refund;
  if (used < gas.floor) used = gas.floor;
  const gasPeak = peak > gas.floor ? peak : gas.floor;

  const returnData = toHex(exec.returnValue);
  const err = exec.exceptionError;
  if (err) {
    const reverted = err.error === EVMError.errorMessages.REVERT;
    const out: VmOutcome = {
      status: reverted ? 'reverted' : 'failed',
      gasUsed: used,
      gasPeak,
      returnData,
      error: reverted ? ERR_REVERTED : err.error,
      logs: [],
      internal: [],
    };
    if (reverted) {
      const reason = decodeRevertReason(exec.returnValue);
      if (reason !== undefined) out.revertReason = reason;
    }
    return out;
  }
  const out: VmOutcome = {
    status: 'success',
    gasUsed: used,
    gasPeak,
    returnData,
    logs: (exec.logs ?? []).map(([address, topics, data]) => ({
      address: toHex(address),
      topics: topics.map(toHex),
      data: toHex(data),
    })),
    internal: tracer.survived,
  };
  if (msg.to === null && result.createdAddress) out.createdAddress = result.createdAddress.toString() as Address;
  return out;
}

/**
 * EIP-6780: a contract that self-destructed in the transaction that created it is removed at
 * the end of the transaction. Cairn never burns value: if wei is left on it (sent to itself, or
 * received after the SELFDESTRUCT), the account stays with only that balance.
 */
async function finishSelfdestructs(
  adapter: EvmStateAdapter,
  destroyed: Map<string, string> | undefined,
  created: Set<string> | undefined,
): Promise<void> {
  if (!destroyed || destroyed.size === 0) return;
  for (const hex of [...destroyed.keys()].sort()) {
    if (!created?.has(hex)) continue;
    const addr = hex as Address;
    const a = await adapter.getAccountState(addr);
    if (a === undefined) continue;
    const address = new EthAddress(fromHex(addr));
    if (weiBalance(a) === 0n) {
      await adapter.deleteAccount(address);
    } else {
      await adapter.clearStorage(address);
      await adapter.putAccountState(addr, { ...a, nonce: 0, codeHash: null });
    }
  }
}

// ---- internal transfers -----------------------------------------------------------------

interface Frame {
  items: InternalTransfer[];
  create: InternalTransfer | null; // the frame's own CREATE transfer, `to` filled in afterMessage
}

/**
 * Follows message frames (beforeMessage/afterMessage nest exactly). A frame's transfers
 * — its own value transfer first, then its children's and its SELFDESTRUCTs in order — move
 * to the parent when it succeeds and are dropped when it reverts or fails.
 */
class Tracer {
  frames: Frame[] = [];
  survived: InternalTransfer[] = [];

  reset(): void {
    this.frames = [];
    this.survived = [];
  }

  before(m: Message): void {
    const f: Frame = { items: [], create: null };
    if (m.depth > 0 && m.value > 0n && m.delegatecall !== true) {
      const from = m.caller.toString() as Address;
      if (m.to === undefined) {
        f.create = { kind: m.salt ? 'CREATE2' : 'CREATE', from, to: from, valueWei: m.value };
        f.items.push(f.create);
      } else if (m.to.toString() !== from) {
        // CALLCODE moves value from the contract to itself: nothing moves, nothing recorded.
        f.items.push({ kind: 'CALL', from, to: m.to.toString() as Address, valueWei: m.value });
      }
    }
    this.frames.push(f);
  }

  after(r: EVMResult): void {
    const f = this.frames.pop();
    if (!f) return;
    if (r.execResult.exceptionError) return;
    if (f.create && r.createdAddress) f.create.to = r.createdAddress.toString() as Address;
    const parent = this.frames.length > 0 ? this.frames[this.frames.length - 1].items : this.survived;
    for (const t of f.items) parent.push(t);
  }

  selfdestruct(t: InternalTransfer): void {
    if (this.frames.length > 0) this.frames[this.frames.length - 1].items.push(t);
  }
}

type OpEntry = { opHandler: (runState: RunStateLike, common: unknown) => unknown };
interface RunStateLike {
  stack: { peek(n: number): bigint[] };
  interpreter: { getAddress(): EthAddress; getSelfBalance(): bigint };
}

/**
 * Wraps this EVM instance's SELFDESTRUCT handler to (1) record the value it moves as an
 * internal transfer and (2) undo the burn a self-beneficiary SELFDESTRUCT of a contract
 * created in the same transaction performs (EIP-6780 keeps it; EIP-8246 removes it; Cairn
 * conserves value, so it restores the balance the opcode zeroed).
 */
function wrapSelfdestruct(evm: EVM, tracer: Tracer, adapter: EvmStateAdapter): void {
  const map = (evm as unknown as { _opcodeMap: OpEntry[] })._opcodeMap;
  const entry = map[0xff];
  const original = entry.opHandler;
  map[0xff] = {
    ...entry,
    opHandler: async (runState: RunStateLike, common: unknown) => {
      const beneficiary = createAddressFromBigInt(runState.stack.peek(1)[0]);
      const self = runState.interpreter.getAddress();
      const balance = runState.interpreter.getSelfBalance();
      try {
        await original(runState, common);
      } catch (e) {
        // The opcode ends its frame by throwing STOP; anything else is not a completed SELFDESTRUCT.
        if ((e as { error?: unknown } | null)?.error !== EVMError.errorMessages.STOP) throw e;
        if (balance > 0n) {
          if (!beneficiary.equals(self)) {
            tracer.selfdestruct({
              kind: 'SELFDESTRUCT',
              from: self.toString() as Address,
              to: beneficiary.toString() as Address,
              valueWei: balance,
            });
          } else {
            const now = await adapter.getAccount(self);
            if (now && now.balance !== balance) await adapter.modifyAccountFields(self, { balance });
          }
        }
        throw e;
      }
    },
  };
}

// ---- helpers ----------------------------------------------------------------------------

function refused(error: string): VmOutcome {
  return { status: 'failed', gasUsed: 0n, gasPeak: 0n, returnData: '0x', error, logs: [], internal: [] };
}

function normalizeMessage(m: VmMessage): VmMessage {
  if (!isHex(m.from, 20)) throw new RangeError(`bad from address ${String(m.from).slice(0, 50)}`);
  if (m.to !== null && !isHex(m.to, 20)) throw new RangeError(`bad to address ${String(m.to).slice(0, 50)}`);
  return { ...m, from: m.from.toLowerCase() as Address, to: m.to === null ? null : (m.to.toLowerCase() as Address) };
}

function checkContext(ctx: VmBlockContext): void {
  if (!Number.isSafeInteger(ctx.height) || ctx.height < 0) throw new RangeError(`bad height ${ctx.height}`);
  if (!Number.isSafeInteger(ctx.timestamp) || ctx.timestamp < 0) throw new RangeError(`bad timestamp ${ctx.timestamp}`);
  if (!isHex(ctx.producer, 20)) throw new RangeError(`bad producer ${ctx.producer}`);
}

function blockOf(ctx: VmBlockContext, coinbase: EthAddress) {
  return {
    header: {
      number: BigInt(ctx.height),
      coinbase,
      timestamp: BigInt(ctx.timestamp) / 1000n,
      difficulty: 0n,
      prevRandao: prevRandao(ctx.height),
      gasLimit: VM_BLOCK_GAS_LIMIT,
      baseFeePerGas: 0n,
      getBlobGasPrice: () => 1n,
    },
  };
}

/** PREVRANDAO: keccak256 of the height as a 32-byte big-endian word. Deterministic and public. */
export function prevRandao(height: number): Uint8Array {
  if (lastRandao.height !== height)
    lastRandao = { height, value: keccak256(setLengthLeft(bigIntToBytes(BigInt(height)), 32)) };
  return lastRandao.value;
}
let lastRandao: { height: number; value: Uint8Array } = { height: -1, value: new Uint8Array(32) };

/** Lower-cases and checks an access list; null when malformed (20-byte addresses, 32-byte keys). */
function normalizeAccessList(list: readonly AccessListEntry[] | undefined): AccessListEntry[] | null {
  if (!list) return [];
  const out: AccessListEntry[] = [];
  for (const e of list) {
    if (!isHex(e.address, 20) || !Array.isArray(e.storageKeys)) return null;
    const keys: Hex[] = [];
    for (const k of e.storageKeys) {
      if (!isHex(k, 32)) return null;
      keys.push(k.toLowerCase() as Hex);
    }
    out.push({ address: e.address.toLowerCase() as Address, storageKeys: keys });
  }
  return out;
}

const ERROR_SELECTOR = '08c379a0';

/** Decodes an ABI `Error(string)` revert payload; undefined for anything else (custom errors, panics, garbage). */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 68 || Buffer.from(data.subarray(0, 4)).toString('hex') !== ERROR_SELECTOR) return undefined;
  const word = (at: number): bigint | undefined =>
    at + 32 <= data.length ? BigInt(toHex(data.subarray(at, at + 32))) : undefined;
  const offset = word(4);
  if (offset === undefined || offset > BigInt(data.length)) return undefined;
  const len = word(4 + Number(offset));
  if (len === undefined) return undefined;
  const start = 4 + Number(offset) + 32;
  if (BigInt(start) + len > BigInt(data.length)) return undefined;
  return Buffer.from(data.subarray(start, start + Number(len))).toString('utf8');
}
