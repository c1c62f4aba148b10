import { partiesOf } from '../modules/registry';
import type { Logger } from 'pino';
import { finalizedHeightFrom } from '../consensus/finality';
import { VALIDATORS_KEY, type ValidatorSet } from '../chain/genesis';
import { TREASURY_ADDRESS } from '../protocol/params';
import type { Head } from '../protocol/chain';
import type { Address, Block } from '../protocol/types';
import type { KvBatch, KvStore } from '../state/kv';
import type { StateTrie } from '../state/stateTrie';
import type { ChainStore } from '../storage/chainStore';
import type { ActorRef } from './actorRef';
import type { HeadSink, MempoolMsg, MempoolReplies } from './protocol';

export interface CommitDeps {
  kv: KvStore;
  store: ChainStore;
  view: HeadSink;
  mempool: ActorRef<MempoolMsg, MempoolReplies>;
  log: Logger;
}

/** A block ready to commit: executed on `state`, whose nodes are already in `batch`. */
export interface ExecutedBlock {
  block: Block;
  state: StateTrie;
  batch: KvBatch;
  /** Transactions the mempool should drop for good, with the reason (our own blocks). */
  dropped: { id: Block['txs'][number]['id']; reason: string }[];
  /** Timings so far (ms since `started`), for the commit log line. */
  started: number;
  phases: Record<string, number>;
}

/** Producers kept for the finality rule. */
const WINDOW = 64;

/**
 * Commits an executed block, whoever produced it (this node now; peers' blocks through the
 * importer next): finality, block + indexes + head in the same batch as its state nodes,
 * one atomic write, then the state settles, the head is published and the mempool told.
 */
export function createBlockCommitter(d: CommitDeps) {
  return async function commitBlock(x: ExecutedBlock): Promise<Head> {
    const { header, txs, results } = x.block;
    const parent = d.view.head;
    // Producers of the newest blocks, newest first (read back from the view: a reorganization rewinds it).
    const producers: Address[] = d.view.recent.filter((s) => s.height >= 1 && s.height <= parent.height).slice(-WINDOW).reverse().map((s) => s.producer);
    const finalizedHeight = finalizedHeightFrom(header.height, [header.producer, ...producers], d.view.validators.length, parent.finalizedHeight);
    const head: Head = { height: header.height, hash: header.hash, stateRoot: header.stateRoot, finalizedHeight, timestamp: header.timestamp };
    const touched = [header.producer, TREASURY_ADDRESS, ...txs.flatMap(partiesOf)];
    for (const r of results) if (r.vm?.contractAddress) touched.push(r.vm.contractAddress);
    const tIndex = performance.now();
    const summary = await d.store.putUndoableBlock(x.batch, x.block, head, await d.store.unseen(touched), await d.store.counters());
    const tWrite = performance.now();
    await d.kv.write(x.batch);
    const tWritten = performance.now();
    x.state.settle();
    const validators = (await x.state.getRecord<ValidatorSet>(VALIDATORS_KEY))?.active;
    d.view.publish(head, summary, validators);
    d.mempool.send({ type: 'blockCommitted', height: header.height, hash: header.hash, included: txs.map((t) => t.id), dropped: x.dropped });
    d.log.info(
      {
        height: header.height, hash: header.hash, txs: txs.length, dropped: x.dropped.length, finalizedHeight, ms: Math.round(performance.now() - x.started),
        // Where the time went: state prefetch, execution, trie hashing, header + indexes, disk write.
        phases: { ...x.phases, index: Math.round(tWrite - tIndex), write: Math.round(tWritten - tWrite) },
      },
      'block committed',
    );
    return head;
  };
}

export type CommitBlock = ReturnType<typeof createBlockCommitter>;
