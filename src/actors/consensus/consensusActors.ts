import type { HybridKeys } from '../../crypto/keys';
import { ActorRef, type Behavior } from '../actorRef';
import { consensusBehavior, type ConsensusDeps } from './consensusActor';
import { importerBehavior } from './importer';
import { producerBehavior, type ProducerDeps } from './producerActor';
import type {
  ConsensusMsg,
  ConsensusReplies,
  ImporterMsg,
  ImporterReplies,
  ProducerMsg,
  ProducerReplies,
} from '../protocol';
import type { ChildSpec } from '../supervisor';

/** What the three consensus actors (producer, importer, consensus) need between them. */
export type ConsensusActorsDeps = Omit<ConsensusDeps, 'producer' | 'importer' | 'self'> &
  ProducerDeps & { keys: HybridKeys };

/**
 * The chain's actors (the design card's split): the producer (builds and signs in this
 * validator's slots), the importer (checks and executes peers' blocks) and the consensus
 * actor (slot clock, fork choice, finality, the one writer) that asks them and commits.
 * `children` are the producer and importer specs for the supervisor; `consensus` makes the
 * consensus behaviour wired to them. Start the children first: the supervisor stops in
 * reverse order, so consensus stops before the actors it asks.
 */
export function consensusActors(d: ConsensusActorsDeps) {
  const producer = new ActorRef<ProducerMsg, ProducerReplies>('producer', 4);
  const importer = new ActorRef<ImporterMsg, ImporterReplies>('importer', 4);
  const children = [
    { ref: producer, start: async () => producerBehavior(d) } satisfies ChildSpec<ProducerMsg, ProducerReplies>,
    { ref: importer, start: async () => importerBehavior(d) } satisfies ChildSpec<ImporterMsg, ImporterReplies>,
  ] as const;
  const consensus = (): Behavior<ConsensusMsg, ConsensusReplies> =>
    consensusBehavior({ ...d, self: d.keys.address, producer, importer });
  return { producer, importer, children, consensus };
}

/** Outside a supervisor (tests, tools): the producer and importer attached at once; returns the consensus behaviour. */
export function standaloneConsensus(d: ConsensusActorsDeps): Behavior<ConsensusMsg, ConsensusReplies> {
  const a = consensusActors(d);
  a.producer.attach(producerBehavior(d));
  a.importer.attach(importerBehavior(d));
  return a.consensus();
}
