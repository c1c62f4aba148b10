import type { ExecState } from '../chain/execState';
import type { Address, SignedTx, TxType } from '../chain/types';

/** What a handler sees while executing one transaction. Fees and nonce are already settled. */
export interface ExecContext {
  state: ExecState;
  height: number;
  sender: Address;
  tx: SignedTx;
}

/**
 * One transaction type. `validate` is stateless (run at admission: a failure refuses the
 * envelope); `execute` may throw TxFailure, after which its state changes are reverted
 * and the transaction is recorded as failed.
 */
export interface TxHandler {
  type: TxType;
  validate(tx: SignedTx): string | undefined;
  execute(ctx: ExecContext): Promise<void>;
}
