import type { CommitteeRecord } from '../../protocol/bridge';
import type { SignedTx } from '../../protocol/types';
import type { MemberSignature } from './committee';
import { rotationOf, bridgeCommitteeUpdate } from './rotate';
import { bridgeIn, inboundOf } from './transfer';

/**
 * The committee proof a transaction carries (BRIDGE_IN, BRIDGE_COMMITTEE_UPDATE), for
 * admission to check before the mempool takes it: what was signed and the signatures, the
 * same digests the handlers check. Undefined for other types. Call after handler.validate.
 */
export function attestationOf(
  tx: SignedTx,
  chainId: number,
): { what: string; digest: (c: CommitteeRecord) => Uint8Array; signatures: MemberSignature[] } | undefined {
  if (tx.type === 'BRIDGE_IN') {
    const d = bridgeIn.readData(tx);
    return { what: 'BRIDGE_IN', digest: () => inboundOf(d, chainId), signatures: d.signatures };
  }
  if (tx.type === 'BRIDGE_COMMITTEE_UPDATE') {
    const d = bridgeCommitteeUpdate.readData(tx);
    return { what: 'BRIDGE_COMMITTEE_UPDATE', digest: (c) => rotationOf(c, d, chainId), signatures: d.signatures };
  }
  return undefined;
}
