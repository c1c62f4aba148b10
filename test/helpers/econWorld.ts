import { expect } from 'vitest';
import { applyTx } from '../../src/chain/applyTx';
import { applyGenesis } from '../../src/chain/genesis';
import { finishBlock } from '../../src/chain/finishBlock';
import type { ChainEvent } from '../../src/protocol/events';
import { CHAIN_ID } from '../../src/protocol/params';
import type { Address, SignedTx, TxResult, TxType } from '../../src/protocol/types';
import { COIN } from '../../src/primitives/amount';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { envelope, validate, type TxOpts } from './assetHarness';
import { DEV_NETWORK } from '../../src/chain/devnet';

/**
 * A chain state that runs whole blocks (transactions through applyTx, then finishBlock:
 * machine ticks, rewards, unbonding, elections) for the staking and governance tests.
 * Short windows by default so lifecycles finish in a few blocks.
 */
export const addr = (n: number): Address => `0x${n.toString(16).padStart(40, '0')}`;
export const V0 = addr(0x1000); // the genesis validator
export const [U1, U2, U3, U4] = [addr(0xa1), addr(0xa2), addr(0xa3), addr(0xa4)];
export const FUNDS = 100_000n * COIN;
export const SHORT_WINDOWS = {
  EPOCH_BLOCKS: '5',
  UNBONDING_BLOCKS: '4',
  COMMISSION_DELAY_BLOCKS: '3',
  GOV_VOTING_BLOCKS: '4',
  GOV_TIMELOCK_BLOCKS: '2',
  GOV_DEPOSIT: String(10n * COIN),
  FEE_EXEMPT_STAKE: '0',
};

export class EconWorld {
  height = 0;
  events: ChainEvent[] = [];
  private constructor(
    readonly state: StateTrie,
    readonly kv: MemoryKv,
  ) {}

  /** `funded`: more accounts holding FUNDS at genesis (oracles, jurors…). */
  static async create(
    params: Record<string, string> = {},
    validatorStake = 2_000n * COIN,
    funded: Address[] = [],
  ): Promise<EconWorld> {
    const kv = new MemoryKv();
    const state = await StateTrie.open(kv, null);
    await applyGenesis(state, {
      chainId: CHAIN_ID,
      timestamp: 1,
      params: { ...SHORT_WINDOWS, ...params },
      accounts: [
        ...[U1, U2, U3, U4, ...funded].map((address) => ({ address, balance: String(FUNDS) })),
        { address: V0, balance: String(FUNDS), staked: String(validatorStake), isValidator: true },
      ],
    });
    return new EconWorld(state, kv);
  }

  async tx(type: TxType, from: Address, opts: TxOpts = {}): Promise<SignedTx> {
    return envelope(type, from, { nonce: (await this.state.getAccount(from))?.nonce ?? 0, ...opts });
  }

  /** One block with these transactions (each must pass admission and be included), produced by `producer`. */
  async block(txs: SignedTx[] = [], producer: Address = V0): Promise<TxResult[]> {
    const height = ++this.height;
    const results: TxResult[] = [];
    let burned = 0n;
    for (const tx of txs) {
      expect(validate(tx), tx.type).toBeUndefined();
      const v = await applyTx(this.state, tx, { height, timestamp: height * 1000, producer, network: DEV_NETWORK });
      if (v.kind !== 'applied') throw new Error(`not applied: ${v.refusal.reason}`);
      results.push(v.result);
      burned += v.burned;
    }
    this.events = await finishBlock(this.state, { height, producer, burned });
    return results;
  }

  /** Runs one transaction in its own block; returns its result. */
  async run(type: TxType, from: Address, opts: TxOpts = {}): Promise<TxResult> {
    return (await this.block([await this.tx(type, from, opts)]))[0];
  }

  async ok(type: TxType, from: Address, opts: TxOpts = {}): Promise<TxResult> {
    const r = await this.run(type, from, opts);
    expect(r.error, `${type} failed`).toBeUndefined();
    expect(r.status).toBe('success');
    return r;
  }

  /**
   * The transaction is included and fails with `reason` (applyTx reverts its effects; the tests check the records they
   * care about).
   */
  async fails(type: TxType, from: Address, opts: TxOpts, reason: string): Promise<void> {
    const r = await this.run(type, from, opts);
    expect(r.status, `${type} should fail with ${reason}`).toBe('failed');
    expect(r.error).toBe(reason);
  }

  /** Blocks until `height`. */
  async until(height: number, producer: Address = V0): Promise<void> {
    while (this.height < height) await this.block([], producer);
  }

  async account(a: Address) {
    return (await this.state.getAccount(a))!;
  }

  /** Σ (balance + staked) over `accounts` and the system accounts. */
  async total(accounts: Address[]): Promise<bigint> {
    let t = 0n;
    for (const a of accounts) {
      const acc = await this.state.getAccount(a);
      if (acc) t += acc.balance + acc.staked;
    }
    return t;
  }
}
