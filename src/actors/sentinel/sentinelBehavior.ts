import type { Logger } from 'pino';
import type { Address, SigningKeys } from '../../protocol/types';
import type { Hex } from '../../primitives/hex';
import type { ChainStore, Head } from '../../storage/chainStore';
import { behaviorOf, type ActorRef, type Behavior } from '../actorRef';
import type { MempoolMsg, MempoolReplies, SentinelMsg, SentinelReplies } from '../protocol';
import type { AlertLog } from './alertLog';
import type { DetectorContext } from './detector';
import { createDetectors } from './detectors';
import { type SentinelOptions, defaultSentinelOptions } from './options';
import type { SentinelView } from './sentinelView';

export interface SentinelDeps {
  alerts: AlertLog;
  view: Pick<SentinelView, 'head' | 'validators' | 'recent'>;
  store: Pick<ChainStore, 'block' | 'summary'>;
  mempool?: Pick<ActorRef<MempoolMsg, MempoolReplies>, 'ask'>;
  /** Node actors may read the clock (docs/LAYERS.md: only node actors do); tests pass a fake one. */
  now: () => number;
  /**
   * Height of the last block looked at, kept outside the behaviour so that a restart neither
   * skips blocks whose heads are still queued nor re-reads the block that crashed it.
   */
  cursor?: { height: number };
  /**
   * A producer's bound block-signing keys at the head (to check a gossiped header's signatures); none: unknown
   * producer.
   */
  signingKeys?: (producer: Address) => Promise<SigningKeys | undefined>;
  log: Logger;
  options?: Partial<SentinelOptions>;
}

/**
 * The sentinel's behaviour: it follows the committed chain (each block once, in height
 * order, back to the common ancestor after a reorganization) and feeds what it sees to the
 * detectors. Its state, and theirs, is rebuilt from the read model on (re)start.
 */
export function sentinelBehavior(d: SentinelDeps): Behavior<SentinelMsg, SentinelReplies> {
  const o: SentinelOptions = { ...defaultSentinelOptions, ...d.options };

  let head: Head = d.view.head;
  // Blocks up to `cursor.height` have been looked at; a first start begins at the head (history is not re-scanned).
  const cursor = d.cursor ?? { height: head.height };
  if (cursor.height > head.height || cursor.height < 0) cursor.height = head.height;
  const hashes = new Map<number, Hex>(); // committed height → hash, for reorganizations
  const producers: Address[] = []; // producers of the newest committed blocks, oldest first
  for (const s of d.view.recent) {
    if (s.height > cursor.height || s.height === 0) continue;
    hashes.set(s.height, s.hash);
    producers.push(s.producer);
  }
  producers.splice(0, Math.max(0, producers.length - o.window));

  const ctx: DetectorContext = {
    options: o,
    get head() {
      return head;
    },
    get validators() {
      return d.view.validators;
    },
    producers,
    store: d.store,
    signingKeys: d.signingKeys ?? (async () => undefined),
    log: d.log,
    now: d.now,
    raise: (kind, severity, message, details) => void d.alerts.raise(kind, severity, message, head.height, details),
  };
  const detectors = createDetectors(ctx);

  async function onHead(h: Head): Promise<void> {
    const prev = head;
    if (h.hash === prev.hash && h.height === prev.height && cursor.height >= h.height) {
      for (const x of detectors) x.headRepeated?.(h);
      return;
    }
    // The newest height still holding the block we saw there: the common ancestor.
    let ancestor = Math.min(cursor.height, h.height);
    while (ancestor >= 1 && hashes.has(ancestor)) {
      const s = await d.store.summary(ancestor);
      if (s && s.hash === hashes.get(ancestor)) break;
      ancestor--;
    }
    const rolledBack = h.height <= prev.height && h.hash !== prev.hash;
    head = h;
    if (ancestor < cursor.height || rolledBack) {
      const fork = Math.min(ancestor, h.height);
      for (const x of detectors) x.reorg?.({ prev, head: h, fork });
      for (const height of [...hashes.keys()]) if (height > fork) hashes.delete(height);
      const undone = Math.max(0, cursor.height - fork);
      producers.splice(Math.max(0, producers.length - undone), undone);
      cursor.height = Math.min(cursor.height, fork);
    }
    let from = cursor.height + 1;
    if (h.height - from + 1 > o.maxCatchUp) {
      d.log.debug({ from, to: h.height }, 'sentinel: skipped blocks after a long gap');
      from = h.height - o.maxCatchUp + 1;
    }
    for (let height = from; height <= h.height; height++) {
      const sum = await d.store.summary(height);
      if (!sum) break;
      cursor.height = height; // first: a block that crashes the sentinel is not read again
      hashes.set(sum.height, sum.hash);
      producers.push(sum.producer);
      if (producers.length > o.window) producers.splice(0, producers.length - o.window);
      for (const x of detectors) await x.committed?.(sum);
    }
    for (const x of detectors) x.head?.(h, prev);
    for (const height of hashes.keys()) if (height < head.height - o.headerWindow) hashes.delete(height);
  }

  return behaviorOf<SentinelMsg, SentinelReplies>({
    head: (msg) => onHead(msg.head),
    async header(msg) {
      for (const x of detectors) await x.header?.(msg.header);
    },
    async tick() {
      const now = d.now();
      for (const x of detectors) x.tick?.(now);
      if (!d.mempool) return;
      const s = await d.mempool.ask({ type: 'stats' }).catch(() => undefined); // stopped or restarting
      if (!s) return;
      const at = d.now();
      for (const x of detectors) x.mempool?.(s, at);
    },
  });
}
