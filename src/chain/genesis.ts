import { genesisHeader, txRootOf, ZERO_ADDRESS, ZERO_HASH } from './block';
import { newAccount } from '../protocol/accounts';
import { saveSupply, type ExecState } from '../protocol/execState';
import { CHAIN_ID } from '../protocol/params';
import type { Address, Block } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import { RECORD_PREFIX } from '../protocol/records';

export interface GenesisAccount {
  address: Address;
  balance: string;
  staked?: string;
  feeExempt?: boolean;
  isValidator?: boolean;
  mldsaKeyHash?: Hex | null;
}

export interface GenesisSpec {
  chainId: number;
  timestamp: number;
  accounts: GenesisAccount[];
}

export interface ValidatorSet {
  active: Address[];
}
export const VALIDATORS_KEY = RECORD_PREFIX.validators;

/** Writes the genesis state and returns the genesis block (height 0, unsigned). */
export async function applyGenesis(state: ExecState, spec: GenesisSpec): Promise<Block> {
  if (spec.chainId !== CHAIN_ID) throw new Error(`genesis chain id ${spec.chainId} is not ${CHAIN_ID}`);
  let supply = 0n;
  let staked = 0n;
  const active: Address[] = [];
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
    if (a.isValidator) active.push(g.address);
  }
  if (active.length === 0) throw new Error('genesis needs at least one validator');
  await state.putRecord(VALIDATORS_KEY, { active: [...active].sort() } satisfies ValidatorSet);
  await saveSupply(state, { supply, minted: 0n, burned: 0n, staked });
  const header = genesisHeader({
    height: 0, parentHash: ZERO_HASH, timestamp: spec.timestamp, producer: ZERO_ADDRESS,
    txRoot: txRootOf([]), stateRoot: state.root(), txCount: 0,
  });
  return { header, txs: [], results: [] };
}
