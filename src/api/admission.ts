import { decodeEnvelope, settleAdmitted, verifyGroups, verifyJobsOf } from '../chain/envelope';
import { pqKeyHashOf } from '../crypto/txSigning';
import { decodeEthTx } from '../chain/ethTx';
import type { AccountState, Address, SignedTx } from '../protocol/types';
import type { Network } from '../protocol/network';
import { keccakHex } from '../crypto/hash';
import type { VerifyPool } from '../crypto/verifyPool';
import type { Refusal } from '../protocol/refusal';
import { REFUSAL, TX } from '../protocol/txRefusals';
import { attestationOf, NO_COMMITTEE, quorumRefusalWith } from '../modules/bridge';
import { handlerFor, nestedOf } from '../modules/registry';
import type { CommitteeRecord } from '../protocol/bridge';
import { fromHex, type Hex } from '../primitives/hex';
import type { ChainStore } from '../storage/chainStore';
import { ActorStoppedError, MailboxFullError, type ActorRef } from '../actors/actorRef';
import type { AdmitVerdict, MempoolMsg, MempoolReplies } from '../actors/protocol';

export type SubmitOutcome =
  /**
   * `badSignature`: refused for an invalid signature (the guard counts it as an invalid submission). `invalid`: refused
   * for what no node would accept (its signatures do not verify), not for this node's state: gossip penalizes only
   * these.
   */
  | { kind: 'verdict'; verdict: AdmitVerdict; tx?: SignedTx; badSignature: boolean; invalid?: true }
  | { kind: 'malformed'; error: string; code: string }
  | { kind: 'unavailable'; error: string };

/** A client's transaction turned away while the node cannot keep up (503 with Retry-After; JSON-RPC TX_UNAVAILABLE). */
export const OVERLOADED =
  'node overloaded: it cannot take more transactions now, retry shortly or submit to another node';

export interface SubmitOptions {
  /** false: a transaction a peer gossiped, which its topic forwards by itself (not handed to `onAccepted`). */
  relay?: boolean;
}

/**
 * The admission pipeline in front of the mempool actor, for both envelopes: cheap
 * structural checks first, then the already-known check, then signatures (hybrid: in the
 * worker pool, concurrently, outside the mailbox; Ethereum: sender recovery at decode),
 * and only then the stateful rules inside the mempool actor — one path, one set of reasons.
 */
export function createAdmission(d: {
  /** The chain this node runs: envelopes are decoded and verified for it. */
  network: Network;
  verifier: VerifyPool;
  store: ChainStore;
  /** The sender's account at the published head (cached per head): its nonce says whether a block can hold the id. */
  readAccount: (addr: Address) => Promise<AccountState | undefined>;
  mempool: ActorRef<MempoolMsg, MempoolReplies>;
  now: () => number;
  /** Observes each signature verification's duration in seconds (metrics). */
  onVerified?: (seconds: number) => void;
  /** The bridge committee at the head: BRIDGE_IN and BRIDGE_COMMITTEE_UPDATE are admitted only with its quorum. */
  committee?: () => Promise<CommitteeRecord | undefined>;
  /**
   * Why the head state's permission of `signer` refuses `tx` (protocol/permissions.ts
   * governedRefusal, the check execution makes), or undefined. Asked for the sender and for the
   * user of each nested envelope (a META_TX's inner): a relayed transaction is judged as if its
   * user had sent it.
   */
  governed?: (signer: SignedTx['from'], tx: SignedTx) => Promise<Refusal | undefined>;
  /**
   * Resolves when admission may use the CPU: not while a block is built or imported (actors/consensus/blockWork.ts).
   */
  turn?: () => Promise<void>;
  /** A transaction the mempool accepted: the network relays it to the peers (network/network.ts). */
  onAccepted?: (tx: SignedTx) => void;
  /**
   * Whether the pool would refuse this transaction `mempool full` (TxPool.fullOfReady, and it is not the pool's
   * already: that one is `known`): refused before its signatures
   * are checked, so that a node under more load than it can include spends nothing on what it cannot take (an
   * overloaded network verified every refused transaction first, and its blocks came late).
   */
  full?: (id: Hex) => boolean;
  /**
   * Whether to turn a client's transaction away now because the node cannot keep up (node/loadGauge.ts): answered
   * `unavailable` (503 with Retry-After) before it is even decoded. A peer's (`relay: false`) is not asked about: it
   * was judged by the node it came in at.
   */
  shed?: () => boolean;
}) {
  const refuse = (id: Hex, r: Refusal): SubmitOutcome => ({
    kind: 'verdict',
    verdict: { accepted: false, id, reason: r.reason, code: r.code },
    badSignature: r.code === REFUSAL.signature.code,
  });
  /** Signatures that do not verify: `invalid signature` on every node, whatever its state. */
  const forged = (id: Hex): SubmitOutcome => ({
    kind: 'verdict',
    verdict: { accepted: false, id, reason: REFUSAL.signature.reason, code: REFUSAL.signature.code },
    badSignature: true,
    invalid: true,
  });
  const overloaded = (o: SubmitOptions): SubmitOutcome | undefined =>
    o.relay !== false && d.shed?.() ? { kind: 'unavailable', error: OVERLOADED } : undefined;
  const malformed = (error: string, code: string = TX.TX_MALFORMED({ error }).code): SubmitOutcome => ({
    kind: 'malformed',
    error,
    code,
  });

  /**
   * Whether a block holds the transaction. Every included transaction used its sender's nonce (chain/applyTx.ts), so
   * one at or above the head account's nonce cannot be in a block: only a resubmission below it costs the disk read.
   * Measured (bench/block.ts): a RocksDB get per admitted transaction took ~11 % of the main thread under admission.
   */
  async function inBlock(tx: SignedTx): Promise<boolean> {
    const nonce = (await d.readAccount(tx.from))?.nonce ?? 0;
    return tx.nonce < nonce && (await d.store.txLocation(tx.id)) !== undefined;
  }

  async function admit(
    tx: SignedTx,
    keyHash: Hex | null,
    o: SubmitOptions,
    verify?: () => Promise<boolean>,
  ): Promise<SubmitOutcome> {
    const handler = handlerFor(tx.type);
    if (!handler) return malformed(TX.TX_UNKNOWN_TYPE({ type: String(tx.type) }).reason, 'TX_UNKNOWN_TYPE');
    const typeError = handler.validate(tx);
    if (typeError) return malformed(typeError);
    if (await inBlock(tx)) return refuse(tx.id, REFUSAL.known);
    if (d.full?.(tx.id)) return refuse(tx.id, REFUSAL.full);
    if (verify) {
      let valid: boolean;
      try {
        valid = await verify();
      } catch (e) {
        // A crashed verifier is not a verdict on the transaction: the client should retry.
        return { kind: 'unavailable', error: `signature verification unavailable, retry: ${(e as Error).message}` };
      }
      if (!valid) return forged(tx.id);
    }
    if (d.governed) {
      for (const t of [tx, ...nestedOf(tx)]) {
        const refused = await d.governed(t.from, t);
        if (refused) return refuse(tx.id, refused);
      }
    }
    // A committee proof is checked at the door, in the worker pool: a BRIDGE_IN without its
    // quorum never reaches the mempool or a block, where each would cost every node up to seven
    // reference verifications. The block re-checks it against the committee of its own state.
    const proof = d.committee ? attestationOf(tx, d.network.chainId) : undefined;
    if (proof) {
      const c = await d.committee!();
      if (!c) return refuse(tx.id, NO_COMMITTEE);
      let refused: Refusal | undefined;
      try {
        refused = await quorumRefusalWith(c, proof.digest(c), proof.signatures, proof.what, (job) =>
          d.verifier.verify(job),
        );
      } catch (e) {
        return { kind: 'unavailable', error: `signature verification unavailable, retry: ${(e as Error).message}` };
      }
      if (refused) return refuse(tx.id, refused);
    }
    if (tx.envelope !== 'eth') settleAdmitted(tx);
    try {
      const verdict = await d.mempool.ask({ type: 'admit', tx, keyHash });
      if (verdict.accepted && o.relay !== false) d.onAccepted?.(tx);
      return {
        kind: 'verdict',
        verdict,
        tx,
        badSignature: !verdict.accepted && verdict.code === REFUSAL.signature.code,
      };
    } catch (e) {
      // Back-pressure or shutdown, not a verdict on the transaction: retry later or elsewhere.
      if (e instanceof MailboxFullError || e instanceof ActorStoppedError)
        return { kind: 'unavailable', error: `mempool unavailable, retry: ${e.message}` };
      throw e;
    }
  }

  return {
    /** POST /tx: a hybrid envelope (JSON). */
    async submit(body: unknown, o: SubmitOptions = {}): Promise<SubmitOutcome> {
      const busy = overloaded(o);
      if (busy) return busy;
      await d.turn?.();
      const decoded = decodeEnvelope(body, d.network);
      // A payload changed after signing that keeps its original id: `invalid signature`, decided by the body alone.
      if (!decoded.ok) return decoded.signature ? forged(decoded.id) : malformed(decoded.error);
      const tx = decoded.tx;
      // A key/from mismatch yields a verify job that fails: `invalid signature`; so does a bad nested (META_TX inner)
      // signature.
      return admit(tx, pqKeyHashOf(tx), o, async () => {
        const t0 = performance.now();
        try {
          const [ok] = await verifyGroups((jobs) => d.verifier.verifyMany(jobs), [verifyJobsOf(tx, d.network)]);
          return ok;
        } finally {
          d.onVerified?.((performance.now() - t0) / 1000);
        }
      });
    },
    /** POST /vm/tx and eth_sendRawTransaction: a signed Ethereum transaction. */
    async submitRaw(raw: unknown, o: SubmitOptions = {}): Promise<SubmitOutcome> {
      const busy = overloaded(o);
      if (busy) return busy;
      await d.turn?.();
      const decoded = decodeEthTx(raw, d.now(), d.network.chainId);
      if (!decoded.ok) {
        if (decoded.signature)
          return forged(typeof raw === 'string' && /^0x[0-9a-fA-F]*$/.test(raw) ? keccakHex(fromHex(raw)) : '0x');
        return malformed(decoded.error);
      }
      return admit(decoded.tx, null, o);
    },
  };
}

export type Admission = ReturnType<typeof createAdmission>;
