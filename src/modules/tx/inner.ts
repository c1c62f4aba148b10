import type { TxHandler } from '../../protocol/handler';

/**
 * The handlers of other types, for the types that carry one inside their data (META_TX's
 * signed inner transaction, MULTISIG_PROPOSE's operation). The registry binds the lookup once
 * it is built (registry.ts imports every entry, so an entry cannot import the registry).
 */
let lookup: ((type: string) => TxHandler | undefined) | undefined;

export function bindInnerLookup(f: (type: string) => TxHandler | undefined): void {
  lookup = f;
}

export function innerHandler(type: string): TxHandler | undefined {
  if (!lookup) throw new Error('the transaction registry is not loaded');
  return lookup(type);
}
