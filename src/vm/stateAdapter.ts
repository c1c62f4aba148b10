import type { AccountFields, StateManagerInterface } from '@ethereumjs/common';
import { Account, type Address as EthAddress, KECCAK256_NULL, KECCAK256_RLP, bytesToBigInt } from '@ethereumjs/util';
import { newAccount } from '../protocol/accounts';
import type { ExecState } from '../protocol/execState';
import type { AccountState, Address } from '../protocol/types';
import { keccak256 } from '../crypto/hash';
import { type Hex, fromHex, toHex } from '../primitives/hex';
import { weiBalance, withWeiBalance } from './units';
import { recordKey } from '../protocol/records';

/**
 * Record layout of VM data inside the authenticated state (all covered by the state root):
 * - `vm/code/<codeHash>`          deployed bytecode as 0x hex, content-addressed (shared by
 *                                 identical contracts, never deleted);
 * - `vm/s/<address>/<gen>/<slot>` one storage slot: slot = 0x + 64 hex, value = minimal
 *                                 quantity hex ("0x1f"); a zero slot has no record;
 * - `vm/gen/<address>`            the account's storage generation (number, absent = 0).
 *                                 Clearing storage bumps it, so old slots become unreachable
 *                                 in O(1) without enumerating them (they stay as garbage).
 */
export const codeKey = (codeHash: Hex): string => recordKey('vmCode', codeHash);
export const slotKey = (addr: Address, gen: number, slot: Hex): string => recordKey('vmSlot', addr, gen, slot);
export const genKey = (addr: Address): string => recordKey('vmGeneration', addr);

const KECCAK256_NULL_HEX: Hex = toHex(KECCAK256_NULL);
const EMPTY = new Uint8Array(0);

/**
 * Immutable by construction (keyed by keccak of the bytes), so one process-wide cache is safe.
 * Bounded by total bytes; dropped wholesale when full (no clock, no ordering subtleties).
 */
const codeCache = new Map<Hex, Uint8Array>();
let codeCacheBytes = 0;
const CODE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

function rememberCode(hash: Hex, code: Uint8Array): void {
  if (codeCacheBytes + code.length > CODE_CACHE_MAX_BYTES) {
    codeCache.clear();
    codeCacheBytes = 0;
  }
  codeCache.set(hash, code);
  codeCacheBytes += code.length;
}

/**
 * The EVM's state port (@ethereumjs/common StateManagerInterface) over Cairn's ExecState.
 *
 * - An EVM account is a view of our AccountState: balance in wei (balance × 10^12 +
 *   weiRemainder, units.ts), nonce, codeHash (KECCAK256_NULL when none) and a constant
 *   storageRoot (KECCAK256_RLP: there are no per-account storage tries; slots are records).
 *   Writes change only those fields and keep the rest (staked, energy, mldsaKeyHash, …).
 * - An account the EVM creates starts as `newAccount(height)`. An empty EVM account
 *   (nonce 0, balance 0, no code) is not created: writing one for an address that does not
 *   exist is a no-op. That is what EIP-161 leaves behind after its end-of-transaction sweep,
 *   and the EVM treats absent and empty alike. Existing accounts are never swept: a native
 *   account may be empty to the EVM while holding stake or a key binding.
 * - checkpoint/commit/revert delegate to the ExecState (nested). Reads are cached for the
 *   current binding; every write goes straight through, and a revert drops the caches.
 *   While bound, nothing else may write the ExecState.
 *
 * Deterministic: no clock, no floats, no randomness.
 */
export class EvmStateAdapter implements StateManagerInterface {
  private state: ExecState;
  private height: number;
  private readonly accounts = new Map<Address, AccountState | null>();
  private readonly slots = new Map<string, Hex | null>();
  private readonly gens = new Map<Address, number>();
  private readonly original = new Map<string, Uint8Array>();
  private open = 0; // checkpoints opened through this adapter and not yet closed

  /** EIP-2200/3529: each slot's value at the start of the current transaction (see beginTx). */
  readonly originalStorageCache = {
    get: (address: EthAddress, key: Uint8Array): Promise<Uint8Array> => this.originalStorage(address, key),
    clear: (): void => this.original.clear(),
  };

  constructor(state: ExecState, height: number) {
    this.state = state;
    this.height = height;
  }

  /** Points the adapter at another state/height (pooled EVMs). Drops every cache. */
  bind(state: ExecState, height: number): void {
    this.state = state;
    this.height = height;
    this.clearCaches();
    this.original.clear();
    this.open = 0;
  }

  /** Call at the start of each transaction: forgets the original-value snapshot of storage slots. */
  beginTx(): void {
    this.original.clear();
  }

  get blockHeight(): number {
    return this.height;
  }

  // ---- accounts -------------------------------------------------------------------------

  /** Our account (cached: the object is shared, never mutate it; write a new one with putAccountState). */
  async getAccountState(addr: Address): Promise<Readonly<AccountState> | undefined> {
    let a = this.accounts.get(addr);
    if (a === undefined) {
      a = (await this.state.getAccount(addr)) ?? null;
      this.accounts.set(addr, a);
    }
    return a === null ? undefined : a;
  }

  async putAccountState(addr: Address, a: AccountState): Promise<void> {
    await this.state.putAccount(addr, a);
    this.accounts.set(addr, a);
  }

  async getAccount(address: EthAddress): Promise<Account | undefined> {
    const a = await this.getAccountState(address.toString() as Address);
    if (a === undefined) return undefined;
    return new Account(
      BigInt(a.nonce),
      weiBalance(a),
      KECCAK256_RLP,
      a.codeHash === null ? KECCAK256_NULL : fromHex(a.codeHash),
    );
  }

  async putAccount(address: EthAddress, account?: Account): Promise<void> {
    if (account === undefined) return this.deleteAccount(address);
    const addr = address.toString() as Address;
    const prev = await this.getAccountState(addr);
    if (prev === undefined && account.isEmpty()) return; // see the class comment (EIP-161)
    const codeHash = toHex(account.codeHash);
    if (account.nonce > BigInt(Number.MAX_SAFE_INTEGER))
      throw new Error(`nonce ${account.nonce} of ${addr} exceeds the stored range`);
    const next: AccountState = {
      ...withWeiBalance(prev ?? newAccount(this.height), account.balance),
      nonce: Number(account.nonce),
      codeHash: codeHash === KECCAK256_NULL_HEX ? null : codeHash,
    };
    // The EVM rewrites both parties of every call, value or not; an unchanged account is not rewritten.
    if (
      prev &&
      prev.balance === next.balance &&
      prev.weiRemainder === next.weiRemainder &&
      prev.nonce === next.nonce &&
      prev.codeHash === next.codeHash
    )
      return;
    await this.putAccountState(addr, next);
  }

  async modifyAccountFields(address: EthAddress, fields: AccountFields): Promise<void> {
    // Same semantics as @ethereumjs/statemanager's modifyAccountFields helper.
    const account = (await this.getAccount(address)) ?? new Account();
    account.nonce = fields.nonce ?? account.nonce;
    account.balance = fields.balance ?? account.balance;
    account.codeHash = fields.codeHash ?? account.codeHash;
    // storageRoot/codeSize: not stored (storage lives in records; size is read from the code).
    await this.putAccount(address, account);
  }

  /**
   * Removes the account and makes its storage unreachable (generation bump). The EVM itself
   * calls this only from Journal.cleanup (which executeVm does not use); executeVm calls it for
   * a contract that self-destructed in the transaction that created it (EIP-6780).
   */
  async deleteAccount(address: EthAddress): Promise<void> {
    const addr = address.toString() as Address;
    if ((await this.getAccountState(addr)) === undefined) return;
    await this.bumpGeneration(addr);
    await this.state.deleteAccount(addr);
    this.accounts.set(addr, null);
  }

  // ---- code ---------------------------------------------------------------------------

  async putCode(address: EthAddress, value: Uint8Array): Promise<void> {
    const addr = address.toString() as Address;
    let codeHash: Hex | null = null;
    if (value.length > 0) {
      codeHash = toHex(keccak256(value));
      if ((await this.state.getRecord<Hex>(codeKey(codeHash))) === undefined)
        await this.state.putRecord(codeKey(codeHash), toHex(value));
      rememberCode(codeHash, Uint8Array.from(value));
    }
    const prev = (await this.getAccountState(addr)) ?? newAccount(this.height);
    await this.putAccountState(addr, { ...prev, codeHash });
  }

  async getCode(address: EthAddress): Promise<Uint8Array> {
    const a = await this.getAccountState(address.toString() as Address);
    if (a === undefined || a.codeHash === null) return EMPTY;
    const hit = codeCache.get(a.codeHash);
    if (hit) return hit;
    const hex = await this.state.getRecord<Hex>(codeKey(a.codeHash));
    if (hex === undefined) throw new Error(`code ${a.codeHash} of ${address.toString()} is missing from state`);
    const code = fromHex(hex);
    rememberCode(a.codeHash, code);
    return code;
  }

  async getCodeSize(address: EthAddress): Promise<number> {
    return (await this.getCode(address)).length;
  }

  // ---- storage ------------------------------------------------------------------------

  async getStorage(address: EthAddress, key: Uint8Array): Promise<Uint8Array> {
    const v = await this.readSlot(address.toString() as Address, slotHex(key));
    // Non-zero values as full 32-byte words: the EVM left-pads every loaded value to 32 bytes
    // anyway (setLengthLeftStorage), through a slow spread copy unless it already is 32 bytes.
    return v === null ? EMPTY : Buffer.from(v.slice(2).padStart(64, '0'), 'hex');
  }

  async putStorage(address: EthAddress, key: Uint8Array, value: Uint8Array): Promise<void> {
    const addr = address.toString() as Address;
    const slot = slotHex(key);
    const ok = `${addr}/${slot}`;
    if (!this.original.has(ok)) this.original.set(ok, await this.getStorage(address, key));
    const n = bytesToBigInt(value);
    const gen = await this.generation(addr);
    const k = slotKey(addr, gen, slot);
    if (n === 0n) {
      if ((await this.readSlot(addr, slot)) !== null) await this.state.deleteRecord(k);
      this.slots.set(k, null);
    } else {
      const hex: Hex = `0x${n.toString(16)}`;
      // A no-op SSTORE (the value it holds) leaves the record as it is: a trie write is ~20 µs, the opcode a warm read.
      if ((await this.readSlot(addr, slot)) !== hex) await this.state.putRecord(k, hex);
      this.slots.set(k, hex);
    }
  }

  /** Called by the EVM when it creates a contract at an address: all old slots become unreachable. */
  async clearStorage(address: EthAddress): Promise<void> {
    await this.bumpGeneration(address.toString() as Address);
  }

  private async originalStorage(address: EthAddress, key: Uint8Array): Promise<Uint8Array> {
    const ok = `${address.toString()}/${slotHex(key)}`;
    let v = this.original.get(ok);
    if (v === undefined) {
      v = await this.getStorage(address, key);
      this.original.set(ok, v);
    }
    return v;
  }

  private async readSlot(addr: Address, slot: Hex): Promise<Hex | null> {
    const k = slotKey(addr, await this.generation(addr), slot);
    let v = this.slots.get(k);
    if (v === undefined) {
      v = (await this.state.getRecord<Hex>(k)) ?? null;
      this.slots.set(k, v);
    }
    return v;
  }

  private async generation(addr: Address): Promise<number> {
    let g = this.gens.get(addr);
    if (g === undefined) {
      g = (await this.state.getRecord<number>(genKey(addr))) ?? 0;
      this.gens.set(addr, g);
    }
    return g;
  }

  private async bumpGeneration(addr: Address): Promise<void> {
    const g = (await this.generation(addr)) + 1;
    await this.state.putRecord(genKey(addr), g);
    this.gens.set(addr, g);
    for (const k of [...this.original.keys()]) if (k.startsWith(`${addr}/`)) this.original.delete(k);
  }

  // ---- checkpoints and roots ----------------------------------------------------------

  async checkpoint(): Promise<void> {
    this.state.checkpoint();
    this.open++;
  }

  async commit(): Promise<void> {
    await this.state.commit();
    this.open--;
  }

  async revert(): Promise<void> {
    await this.state.revert();
    this.open--;
    this.clearCaches();
  }

  /** Reverts every checkpoint the EVM opened and did not close (after an exception escaped it). */
  async unwind(): Promise<void> {
    while (this.open > 0) await this.revert();
  }

  async getStateRoot(): Promise<Uint8Array> {
    return fromHex(this.state.root());
  }

  /** Not used by the EVM for message execution (only by block-level VM code, which Cairn does not run). */
  async setStateRoot(_root: Uint8Array, _clearCache?: boolean): Promise<void> {
    throw new Error('EvmStateAdapter.setStateRoot: not supported (the state root is owned by the ExecState)');
  }

  /** Not used by the EVM for message execution. */
  async hasStateRoot(_root: Uint8Array): Promise<boolean> {
    throw new Error('EvmStateAdapter.hasStateRoot: not supported (the state root is owned by the ExecState)');
  }

  clearCaches(): void {
    this.accounts.clear();
    this.slots.clear();
    this.gens.clear();
  }

  /** EVM.shallowCopy uses it: a second adapter over the same ExecState and height (own caches). */
  shallowCopy(_downlevelCaches?: boolean): EvmStateAdapter {
    return new EvmStateAdapter(this.state, this.height);
  }
}

/** Storage keys reach the adapter as 32 bytes (the EVM pads them); anything else is a bug. */
function slotHex(key: Uint8Array): Hex {
  if (key.length !== 32) throw new Error(`storage key must be 32 bytes, got ${key.length}`);
  return toHex(key);
}
