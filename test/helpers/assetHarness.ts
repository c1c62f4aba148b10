import { expect } from 'vitest';
import { applyTx, type TxVerdict } from '../../src/chain/applyTx';
import type { ChainEvent } from '../../src/protocol/events';
import type { ExecState } from '../../src/protocol/execState';
import { applyGenesis, type GenesisSpec } from '../../src/chain/genesis';
import { CHAIN_ID } from '../../src/protocol/params';
import { applyBlock } from '../../src/chain/replay';
import type { Address, Block, SignedTx, TxResult, TxType } from '../../src/protocol/types';
import { keccakHex } from '../../src/crypto/hash';
import { handlerFor } from '../../src/modules/registry';
import { COIN } from '../../src/primitives/amount';
import { toHex, utf8 } from '../../src/primitives/hex';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { DEV_NETWORK } from '../../src/chain/devnet';

/**
 * Shared harness of the asset-module unit tests (FT20, NFT721, name service): unsigned hybrid
 * envelopes (execution does not verify signatures; admission does) sent through applyTx over
 * a StateTrie on MemoryKv. "State untouched" is checked on the state root, which covers
 * every account and record.
 */

const addr = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
/** Funded accounts; their hex digits include letters, so letter-case tests mean something. */
export const ALICE = addr(0xa11ce);
export const BOB = addr(0xb0b);
export const CAROL = addr(0xca201);
export const DAVE = addr(0xdae);
export const PRODUCER = addr(0x99);
/** Each funded account's genesis balance. */
export const FUNDS = 1_000_000n * COIN;

/**
 * Energy units per type, as the protocol fixed them before the registry held them (an entry's `energy` must keep them).
 */
export const ENERGY_COST: Record<string, bigint> = {
  TRANSFER: 100n,
  TOKEN_CREATE: 2_000n,
  TOKEN_TRANSFER: 150n,
  TOKEN_APPROVE: 100n,
  TOKEN_TRANSFER_FROM: 200n,
  TOKEN_MINT: 150n,
  TOKEN_BURN: 150n,
  TOKEN_PAUSE: 100n,
  TOKEN_UNPAUSE: 100n,
  TOKEN_BLACKLIST: 100n,
  TOKEN_FREEZE: 100n,
  TOKEN_UNFREEZE: 100n,
  NFT_CREATE: 2_000n,
  NFT_MINT: 300n,
  NFT_TRANSFER: 150n,
  NFT_APPROVE: 100n,
  NFT_BURN: 150n,
  NAME_REGISTER: 500n,
  NAME_UPDATE: 100n,
  NAME_TRANSFER: 150n,
  NAME_RELEASE: 100n,
  STAKE: 300n,
  UNSTAKE: 300n,
  VOTE: 300n,
  SET_COMMISSION: 200n,
  CLAIM_VOTER_REWARD: 200n,
  SLASH_DOUBLE_SIGN: 1_000n,
  GOV_PROPOSE: 1_000n,
  GOV_VOTE: 300n,
  DELEGATE_RESOURCE: 300n,
  UNDELEGATE_RESOURCE: 300n,
  VESTING_CREATE: 500n,
  VESTING_CLAIM: 200n,
  PERMISSION_UPDATE: 500n,
  PERMISSION_PROPOSE: 500n,
  PERMISSION_APPROVE: 300n,
  PERMISSION_VETO: 300n,
  ORACLE_REGISTER: 500n,
  AI_TASK: 1_000n,
  AI_COMMIT: 500n,
  AI_REVEAL: 500n,
  AI_BID: 500n,
  AI_AWARD: 500n,
  AI_RESULT: 500n,
  AI_CHALLENGE: 500n,
  AI_VERDICT: 500n,
  AI_CLAIM: 500n,
  AI_REFUND: 300n,
  BRIDGE_OUT: 500n,
  BRIDGE_IN: 2_000n,
  BRIDGE_SETTLE: 300n,
  BRIDGE_COMMITTEE_UPDATE: 3_000n,
};

export interface TxOpts {
  to?: Address | null;
  amount?: string;
  data?: unknown;
  nonce?: number;
}

let seq = 0;
/** An unsigned hybrid envelope; every call gets a fresh timestamp, so a fresh id. */
export function envelope(
  type: TxType,
  from: Address,
  { to = null, amount = '0', data = null, nonce = 0 }: TxOpts = {},
): SignedTx {
  const payload = { chainId: CHAIN_ID, type, from, to, amount, nonce, timestamp: ++seq, fee: String(COIN), data };
  return {
    ...payload,
    id: keccakHex(utf8(JSON.stringify(payload))),
    publicKeys: { secp256k1: '0x', mldsa44: toHex(utf8(`key-${from}`)) },
    signatures: { secp256k1: '0x', mldsa44: '0x' },
  } as SignedTx;
}

/**
 * Envelopes that each take their sender's next nonce, counted in `nonces` (which it advances):
 * transactions built ahead of a run, with ids fixed once for its replays.
 */
export function nonceEnvelopes(
  nonces = new Map<Address, number>(),
): (type: TxType, from: Address, opts?: Omit<TxOpts, 'nonce'>) => SignedTx {
  return (type, from, opts = {}) => {
    const nonce = nonces.get(from) ?? 0;
    nonces.set(from, nonce + 1);
    return envelope(type, from, { ...opts, nonce });
  };
}

/** The admission (stateless) verdict of a transaction: its refusal reason, or undefined. */
export const validate = (tx: SignedTx): string | undefined => {
  const h = handlerFor(tx.type);
  if (!h) throw new Error(`no handler for ${tx.type}`);
  return h.validate(tx);
};

/** The refusal of an envelope built from `opts` (sender ALICE unless given). */
export const refusal = (type: TxType, opts: TxOpts, from: Address = ALICE): string | undefined =>
  validate(envelope(type, from, opts));

/** The genesis of an AssetWorld: the four funded accounts, PRODUCER the validator. */
export const ASSET_GENESIS: GenesisSpec = {
  chainId: CHAIN_ID,
  timestamp: 1,
  accounts: [
    ...[ALICE, BOB, CAROL, DAVE].map((address) => ({ address, balance: String(FUNDS) })),
    { address: PRODUCER, balance: '0', staked: '5000000', isValidator: true },
  ],
};

/**
 * One chain state. Each applied transaction runs at `height`: with `autoHeight` (the
 * default) the height first grows by one, otherwise it stays where the test sets it.
 */
export class AssetWorld {
  height = 0;

  private constructor(
    readonly state: ExecState,
    private readonly autoHeight: boolean,
  ) {}

  static async create({ autoHeight = true, height = 0 } = {}): Promise<AssetWorld> {
    const state = await StateTrie.open(new MemoryKv(), null);
    await applyGenesis(state, ASSET_GENESIS);
    const w = new AssetWorld(state, autoHeight);
    w.height = height;
    return w;
  }

  /** An envelope from `from` with its next nonce. */
  async tx(type: TxType, from: Address, opts: TxOpts = {}): Promise<SignedTx> {
    return envelope(type, from, { nonce: (await this.state.getAccount(from))?.nonce ?? 0, ...opts });
  }

  private context(height: number) {
    return { height, timestamp: height * 1000, producer: PRODUCER, network: DEV_NETWORK };
  }

  /** Applies a transaction that must be included (success or failure); checks its energy. */
  async apply(tx: SignedTx): Promise<TxResult> {
    if (this.autoHeight) this.height += 1;
    const v = await applyTx(this.state, tx, this.context(this.height));
    if (v.kind !== 'applied') throw new Error(`not applied: ${v.refusal.reason}`);
    // the type's energy is charged whatever the outcome (from the allowance, the rest burned)
    expect(BigInt(v.result.energyUsed) + BigInt(v.result.burned)).toBe(ENERGY_COST[tx.type]);
    return v.result;
  }

  /** Sends a transaction that must pass admission and succeed; returns its events. */
  async ok(type: TxType, from: Address, opts: TxOpts = {}): Promise<ChainEvent[]> {
    const tx = await this.tx(type, from, opts);
    expect(validate(tx)).toBeUndefined();
    const r = await this.apply(tx);
    expect(r.error).toBeUndefined();
    expect(r.status).toBe('success');
    return r.events ?? [];
  }

  /**
   * Sends a transaction that passes admission but fails at execution with `reason`: no
   * events, and the state is the one before except for the sender's nonce, energy and the
   * burned part of the fee.
   */
  async fails(type: TxType, from: Address, opts: TxOpts, reason: string): Promise<void> {
    const tx = await this.tx(type, from, opts);
    expect(validate(tx)).toBeUndefined();
    const rootBefore = this.state.root();
    const accBefore = (await this.state.getAccount(from))!;
    const r = await this.apply(tx);
    expect(r).toMatchObject({ status: 'failed', error: reason });
    expect(r.events).toBeUndefined();
    const accAfter = (await this.state.getAccount(from))!;
    expect(accAfter.nonce).toBe(accBefore.nonce + 1);
    expect(accAfter.balance).toBe(accBefore.balance - BigInt(r.burned)); // the only balance change a failure makes
    // with the sender's account put back, nothing else differs
    this.state.checkpoint();
    await this.state.putAccount(from, accBefore);
    expect(this.state.root()).toBe(rootBefore);
    await this.state.revert();
  }

  /**
   * A transaction admission refuses with `reason`: it can never be in a block. applyTx (block
   * building and block import) skips it permanently with the same reason, and block import
   * (applyBlock) rejects a block carrying it; state untouched either way.
   */
  async refused(type: TxType, from: Address, opts: TxOpts, reason: string): Promise<void> {
    const tx = await this.tx(type, from, opts);
    expect(validate(tx)).toBe(reason);
    const rootBefore = this.state.root();
    const height = this.autoHeight ? this.height + 1 : this.height; // where the next block would run
    const v = await applyTx(this.state, tx, this.context(height));
    expect(v).toEqual<TxVerdict>({
      kind: 'skip',
      refusal: { code: 'TX_MALFORMED', reason, meta: { error: reason } },
      permanent: true,
      gap: false,
    });
    expect(this.state.root()).toBe(rootBefore);

    const claimed: TxResult = { status: 'failed', error: reason, energyUsed: '0', burned: '0' };
    const block = {
      header: { ...this.context(height), txCount: 1 },
      txs: [tx],
      results: [claimed],
    } as unknown as Block;
    expect(await applyBlock(this.state, block, DEV_NETWORK)).toBe(`transaction ${tx.id} cannot be included: ${reason}`);
    expect(this.state.root()).toBe(rootBefore);
  }
}
