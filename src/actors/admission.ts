import { decodeEnvelope, verifyJobOf } from '../chain/envelope';
import type { SignedTx } from '../chain/types';
import { keccakHex } from '../crypto/hash';
import type { VerifyPool } from '../crypto/verifyPool';
import { REFUSAL } from '../mempool/pool';
import { handlerFor } from '../modules/registry';
import { fromHex } from '../primitives/hex';
import type { ChainStore } from '../storage/chainStore';
import type { ActorRef } from './actorRef';
import type { AdmitVerdict, MempoolMsg } from './protocol';

export type SubmitOutcome =
  | { kind: 'verdict'; verdict: AdmitVerdict; tx: SignedTx }
  | { kind: 'malformed'; error: string }
  | { kind: 'unavailable'; error: string };

/**
 * The admission pipeline in front of the mempool actor: cheap structural checks first,
 * then the already-known check, then signatures in the worker pool (concurrently, outside
 * the mailbox), and only then the stateful rules inside the mempool actor.
 */
export function createAdmission(d: { verifier: VerifyPool; store: ChainStore; mempool: ActorRef<MempoolMsg> }) {
  return async function submit(body: unknown): Promise<SubmitOutcome> {
    const decoded = decodeEnvelope(body);
    if (!decoded.ok) return { kind: 'malformed', error: decoded.error };
    const tx = decoded.tx;
    const typeError = handlerFor(tx.type).validate(tx);
    if (typeError) return { kind: 'malformed', error: typeError };
    const refuse = (reason: string): SubmitOutcome => ({ kind: 'verdict', verdict: { accepted: false, id: tx.id, reason }, tx });
    if (await d.store.txLocation(tx.id)) return refuse(REFUSAL.known);
    let valid: boolean;
    try {
      valid = await d.verifier.verify(verifyJobOf(tx)); // a key/from mismatch yields a job that fails
    } catch (e) {
      // A crashed verifier is not a verdict on the transaction: the client should retry.
      return { kind: 'unavailable', error: `signature verification unavailable, retry: ${(e as Error).message}` };
    }
    if (!valid) return refuse(REFUSAL.signature);
    const keyHash = keccakHex(fromHex(tx.publicKeys.mldsa44));
    const verdict = await d.mempool.ask<AdmitVerdict>({ type: 'admit', tx, keyHash });
    return { kind: 'verdict', verdict, tx };
  };
}

export type Submit = ReturnType<typeof createAdmission>;
