import type { BlockIntakeView } from '../views';
import { parseBlock } from '../chain/blockShape';
import type { ActorRef } from '../actors/actorRef';
import { ActorStoppedError, MailboxFullError } from '../actors/actorRef';
import type { ConsensusMsg, ConsensusReplies } from '../actors/protocol';
import type { Block } from '../protocol/types';

/**
 * POST /blocks: a block gossiped by a peer. A malformed or invalid block answers 400 with
 * the reason and changes nothing; otherwise the answer says what became of it:
 * `imported`, `known`, `stale` (a branch fork choice does not prefer) or `orphan` (its parent
 * is unknown here: the sync pulls the missing blocks from the configured peers, at once — `onOrphan`).
 */
export type BlockIntakeOutcome =
  | { status: 200; body: BlockIntakeView }
  | { status: 400; body: { error: string } }
  | { status: 503; body: { error: string } };

export function createBlockIntake(d: {
  consensus: Pick<ActorRef<ConsensusMsg, ConsensusReplies>, 'ask'>;
  now: () => number;
  onImported?: (b: Block) => void;
  /** A block whose parent is unknown here came: its branch is to be pulled now, not at the next poll. */
  onOrphan?: () => void;
}) {
  return async function receive(body: unknown): Promise<BlockIntakeOutcome> {
    const parsed = parseBlock(body);
    if (!parsed.ok) return { status: 400, body: { error: parsed.error } };
    try {
      const r = await d.consensus.ask({ type: 'importBlocks', blocks: [parsed.block], now: d.now() });
      // An early block answers as a refused one did (400): the sender's sync brings it again later.
      if (r.rejected ?? r.early) return { status: 400, body: { error: `invalid block: ${r.rejected ?? r.early}` } };
      if (r.imported > 0) d.onImported?.(parsed.block);
      else if (r.orphan) d.onOrphan?.();
      const status: BlockIntakeView['status'] =
        r.imported > 0 ? 'imported' : r.known > 0 ? 'known' : r.orphan ? 'orphan' : 'stale';
      return { status: 200, body: { status, height: r.head.height } };
    } catch (e) {
      if (e instanceof MailboxFullError || e instanceof ActorStoppedError)
        return { status: 503, body: { error: `consensus busy, retry: ${e.message}` } };
      throw e;
    }
  };
}

export type BlockIntake = ReturnType<typeof createBlockIntake>;
