import { CairnError } from '../errors/CairnError';

/**
 * A broken invariant of an on-chain machine. Never a transaction outcome: it escapes
 * `applyTx` (which turns only TxFailure into a failed result) and halts block execution,
 * because every node would otherwise have to guess the same recovery.
 */
export type MachineErrorCode =
  /** A definition that cannot run on-chain (a '/' in its name, delays, history, invocations). */
  | 'MACHINE_BAD_DEFINITION'
  /** A stored record written by another definition or version than the one loading it. */
  | 'MACHINE_UNKNOWN_VERSION'
  /** A stored state value the definition does not have. */
  | 'MACHINE_BAD_RECORD'
  /** The due-height index names a machine no registered definition has. */
  | 'MACHINE_NOT_REGISTERED'
  /** A deadline that is not a height after the one being ticked. */
  | 'MACHINE_BAD_DEADLINE'
  /** A machine whose deadline came refused the DEADLINE event, or failed it without a fallback. */
  | 'MACHINE_TICK_FAILED'
  /** A transition asked for an action an on-chain machine may not use (spawn, sendTo, raise with delay). */
  | 'MACHINE_UNSUPPORTED_ACTION';

export class MachineError extends CairnError<MachineErrorCode> {
  constructor(
    code: MachineErrorCode,
    message: string,
    meta: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(code, message, meta, options);
    this.name = 'MachineError';
  }
}
