import { genesisHeader, txRootOf, ZERO_ADDRESS, ZERO_HASH } from './block';
import { newAccount } from '../protocol/accounts';
import { saveSupply, type ExecState } from '../protocol/execState';
import { genesisParams, PARAMS_KEY } from '../protocol/governable';
import { MAX_CHAIN_ID } from '../protocol/params';
import type { Address, Block } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { Network } from '../protocol/network';
import { MemoryKv } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import { DEFAULT_COMMISSION_BPS, registerCandidate, VALIDATORS_KEY, type ValidatorSet } from '../modules/staking';

export interface GenesisAccount {
  address: Address;
  balance: string;
  staked?: string;
  feeExempt?: boolean;
  /** A genesis validator: in the first active set, and a candidate from the start. */
  isValidator?: boolean;
  /** A validator's block-signing public keys (absent: not bound yet). */
  signingKeys?: { secp256k1: Hex; mldsa44: Hex };
  commissionBps?: number;
  mldsaKeyHash?: Hex | null;
}

/** The chain specification (`cairn node --genesis <file>`; docs/PROTOCOL.md "Chain specification"). */
export interface GenesisSpec {
  chainId: number;
  timestamp: number;
  accounts: GenesisAccount[];
  /** Governable parameters (protocol/governable.ts): integer strings overriding the defaults. */
  params?: Record<string, string>;
}

export type { ValidatorSet };
export { VALIDATORS_KEY };

/**
 * The network a specification makes (its genesis built on a scratch store): what a tool signs for before any node runs
 * it.
 */
export async function networkOfSpec(spec: GenesisSpec): Promise<Network> {
  const block = await applyGenesis(await StateTrie.open(new MemoryKv(), null), spec);
  return { chainId: spec.chainId, genesisHash: block.header.hash };
}

/** Writes the genesis state and returns the genesis block (height 0, unsigned). */
export async function applyGenesis(state: ExecState, spec: GenesisSpec): Promise<Block> {
  if (!Number.isSafeInteger(spec.chainId) || spec.chainId < 1 || spec.chainId > MAX_CHAIN_ID)
    throw new Error(`genesis chain id ${spec.chainId} is not from 1 to ${MAX_CHAIN_ID}`);
  let supply = 0n;
  let staked = 0n;
  const active: Address[] = [];
  await state.putRecord(PARAMS_KEY, genesisParams(spec.params));
  for (const g of spec.accounts) {
    const a = newAccount(0);
    a.balance = BigInt(g.balance);
    a.staked = BigInt(g.staked ?? '0');
    a.feeExempt = g.feeExempt ?? false;
    a.isValidator = g.isValidator ?? false;
    a.mldsaKeyHash = g.mldsaKeyHash ?? null;
    await state.putAccount(g.address, a);
    supply += a.balance + a.staked;
    staked += a.staked;
    if (a.isValidator) {
      active.push(g.address);
      const keys = g.signingKeys ?? { secp256k1: '0x' as Hex, mldsa44: '0x' as Hex };
      await registerCandidate(state, {
        address: g.address,
        signingKeys: keys,
        commissionBps: g.commissionBps ?? DEFAULT_COMMISSION_BPS,
        registeredAt: 0,
      });
    }
  }
  if (active.length === 0) throw new Error('genesis needs at least one validator');
  await state.putRecord(VALIDATORS_KEY, {
    active: [...active].sort(),
    bank: [],
    epoch: 0,
    electedAt: 0,
  } satisfies ValidatorSet);
  await saveSupply(state, { supply, minted: 0n, burned: 0n, staked });
  const header = genesisHeader({
    height: 0,
    parentHash: ZERO_HASH,
    timestamp: spec.timestamp,
    producer: ZERO_ADDRESS,
    txRoot: txRootOf([]),
    stateRoot: state.root(),
    txCount: 0,
  });
  return { header, txs: [], results: [] };
}
