import type { ExecState } from './execState';
import type { Network } from './network';
import type { ChainEvent } from './events';
import type { Refusal } from './refusal';
import type { Address, SignedTx, TxType, VmReceipt } from './types';

/** What a handler sees while executing one transaction. The nonce is already advanced. */
export interface ExecContext {
  state: ExecState;
  height: number;
  timestamp: number; // block timestamp, ms (part of the header: deterministic)
  producer: Address;
  sender: Address;
  tx: SignedTx;
  /** The chain being executed: a transaction carried inside another (META_TX) is verified for it. */
  network: Network;
  /** The EVM, behind a port: the VM types' entries run through it without importing it (applyTx hands it in). */
  vm: VmEngine;
}

/** Runs a VM transaction (VM_DEPLOY, VM_CALL, VM_TRANSFER) on the EVM: its outcome, or TxFailure with its receipt. */
export interface VmEngine {
  execute(ctx: ExecContext): Promise<HandlerOutcome>;
}

/** What execution cost and produced; applyTx turns `energy` into spent energy and burned fees. */
export interface HandlerOutcome {
  energy: bigint;
  vm?: VmReceipt;
  events?: ChainEvent[];
}

/**
 * A failed execution: its state changes are reverted, but the energy it used is still charged.
 * It carries a Refusal (protocol/refusal.ts): the code goes into the result beside the reason.
 */
export class TxFailure<C extends string = string> extends Error {
  readonly code: C;
  readonly reason: string;
  readonly meta: Refusal<C>['meta'];
  constructor(
    readonly refusal: Refusal<C>,
    readonly energy?: bigint,
    readonly vm?: VmReceipt,
  ) {
    super(refusal.reason);
    this.code = refusal.code;
    this.reason = refusal.reason;
    this.meta = refusal.meta;
  }
}

/**
 * One transaction type. `validate` is stateless (run at admission: a failure refuses the
 * envelope with 400); `maxEnergy` bounds what execution may cost, so inclusion can check the
 * fee limit before running; `execute` returns the energy actually used, or throws TxFailure.
 */
export interface TxHandler {
  type: TxType;
  validate(tx: SignedTx): string | undefined;
  maxEnergy(tx: SignedTx): bigint;
  execute(ctx: ExecContext): Promise<HandlerOutcome>;
}
