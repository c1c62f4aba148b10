import { nestedOf, partiesOf } from '../../modules/registry';
import type { Logger } from 'pino';
import { getSchedule } from '../../modules/staking';
import { TREASURY_ADDRESS } from '../../protocol/params';
import type { BlockSummary, Head } from '../../protocol/chain';
import type { Address, Block } from '../../protocol/types';
import type { KvBatch, KvStore } from '../../state/kv';
import type { ChainStore } from '../../storage/chainStore';
import type { ActorRef } from '../actorRef';
import type { Hex } from '../../primitives/hex';
import type { ExecutedBlock, HeadSink, LifecycleReports, MempoolMsg, MempoolReplies } from '../protocol';

export type { ExecutedBlock };

export interface CommitDeps {
  kv: KvStore;
  store: ChainStore;
  view: HeadSink;
  mempool: ActorRef<MempoolMsg, MempoolReplies>;
  log: Logger;
  /** Told of each block once it is written and published (a cache keeps it decoded for readers). */
  onCommitted?: (block: Block, summary: BlockSummary) => void;
  /** The lifecycle actors: each block and its transactions are reported committed, and finality as it advances. */
  lifecycles?: LifecycleReports;
  /** Sees each block's batch just before it is written (the state collector keeps the nodes it writes). */
  beforeWrite?: (batch: KvBatch) => void;
}

/**
 * Commits an executed block, whoever produced it (this node's producer, or a peer, checked
 * and executed by the importer): finality, block + indexes + head in the same batch as its
 * state nodes, one atomic write, then the state settles, the head is published and the
 * mempool told.
 */
export function createBlockCommitter(d: CommitDeps) {
  return async function commitBlock(x: ExecutedBlock): Promise<Head> {
    const { header, txs, results } = x.block;
    const parent = d.view.head;
    // Finality is part of the block's state (modules/staking/schedule.ts); this node's final height never goes back.
    const schedule = await getSchedule(x.state);
    const finalizedHeight = Math.max(schedule.finalizedHeight, parent.finalizedHeight);
    const head: Head = {
      height: header.height,
      hash: header.hash,
      stateRoot: header.stateRoot,
      finalizedHeight,
      timestamp: header.timestamp,
      justifiedHeight: schedule.epochs?.justified.height ?? finalizedHeight,
    };
    const touched = [header.producer, TREASURY_ADDRESS, ...txs.flatMap(partiesOf)];
    for (const r of results) if (r.vm?.contractAddress) touched.push(r.vm.contractAddress);
    const tIndex = performance.now();
    const summary = await d.store.putUndoableBlock(
      x.batch,
      x.block,
      head,
      await d.store.unseen(touched),
      await d.store.counters(),
    );
    const tWrite = performance.now();
    d.beforeWrite?.(x.batch);
    await d.kv.write(x.batch);
    const tWritten = performance.now();
    x.state.settle();
    d.view.publish(head, summary, schedule.active);
    d.onCommitted?.(x.block, summary);
    const included = txs.map((t) => t.id);
    reportCommitted(
      d.lifecycles,
      header,
      included,
      finalizedHeight > parent.finalizedHeight ? finalizedHeight : undefined,
    );
    d.mempool.send({
      type: 'blockCommitted',
      height: header.height,
      hash: header.hash,
      included,
      dropped: x.dropped,
      nonces: usedNonces(txs),
    });
    d.log.info(
      {
        height: header.height,
        hash: header.hash,
        txs: txs.length,
        dropped: x.dropped.length,
        finalizedHeight,
        ms: Math.round(performance.now() - x.started),
        // Where the time went: state prefetch, execution, trie hashing, header + indexes, disk write.
        phases: { ...x.phases, index: Math.round(tWrite - tIndex), write: Math.round(tWritten - tWrite) },
      },
      'block committed',
    );
    return head;
  };
}

export type CommitBlock = ReturnType<typeof createBlockCommitter>;

/**
 * A commit, to the lifecycle actors: the block committed, its transactions included, and the new finalized height if it
 * moved.
 */
function reportCommitted(
  to: LifecycleReports | undefined,
  { height, hash }: Block['header'],
  ids: Hex[],
  finalized: number | undefined,
): void {
  if (!to) return;
  to.blocks.send({ type: 'step', hash, height, event: { type: 'COMMITTED' } });
  to.txs.send({ type: 'included', height, hash, ids });
  if (finalized === undefined) return;
  to.blocks.send({ type: 'finalized', height: finalized });
  to.txs.send({ type: 'finalized', height: finalized });
}

/**
 * The nonces a block used: each transaction's, and each nested one's (a META_TX's inner
 * transaction advances its user's nonce). The mempool moves each sender's base past them;
 * without the inner ones a relayed user's next transaction stayed counted as gapped (evictable,
 * and expiring on the gapped lifetime) until that user's next admission.
 */
export const usedNonces = (txs: readonly Block['txs'][number][]): [Address, number][] =>
  txs.flatMap((t) => [t, ...nestedOf(t)]).map((t) => [t.from, t.nonce]);
