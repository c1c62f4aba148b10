import type { HybridKeys } from '../src/crypto/keys';
import { COIN } from '../src/primitives/amount';
import type { Hex } from '../src/primitives/hex';
import type { TxInput } from '../src/sdk/assets';
import { machineGraph } from '../src/machines/graph';
import { MACHINES } from '../src/modules/machines';
import type { ChainEvent } from '../src/protocol/events';
import type { Block } from '../src/protocol/types';
import type { Prng } from './prng';

/**
 * The simulated clients' protocol transactions, beside the transfers: staking, governance
 * proposals and votes, AI tasks and bridge transfers — each drives an on-chain machine
 * (proposal, AI task, bridge transfer) whose deadlines are block heights, so forks, reorgs
 * and crashes meet them mid-lifecycle. Nothing answers the tasks or settles the transfers:
 * they run out their windows, which is a lifecycle too.
 */
export function protocolInput(rng: Prng, users: readonly HybridKeys[], proposals: readonly Hex[]): TxInput {
  const pick = rng.int(6);
  const someone = () => users[rng.int(users.length)].address;
  switch (pick) {
    case 0:
      return { type: 'STAKE', amount: BigInt(1 + rng.int(20)) * COIN } as TxInput;
    case 1:
      return {
        type: 'GOV_PROPOSE',
        deposit: 100n * COIN,
        param: 'BANK_SIZE',
        value: String(3 + rng.int(5)),
      } as TxInput;
    case 2:
      // A vote on a recent proposal (one that may be gone on this branch, or closed: refused in its block, with the
      // machine's reason).
      return proposals.length > 0
        ? ({
            type: 'GOV_VOTE',
            proposalId: proposals[proposals.length - 1 - rng.int(Math.min(3, proposals.length))],
            vote: rng.chance(700) ? 'yes' : 'no',
          } as TxInput)
        : ({ type: 'STAKE', amount: COIN } as TxInput);
    case 3:
      return { type: 'AI_TASK', reward: BigInt(1 + rng.int(5)) * COIN, prompt: 'what is 2 + 3', quorum: 2 } as TxInput;
    case 4:
      return {
        type: 'BRIDGE_OUT',
        chain: 'ethereum',
        recipient: `0xabc${'0'.repeat(36)}${rng.int(10)}`,
        amount: BigInt(1 + rng.int(10)) * COIN,
      } as TxInput;
    default:
      return { type: 'TRANSFER', to: someone(), amount: COIN } as TxInput;
  }
}

/** Each on-chain machine's legal moves, "from>to" (machines/graph.ts), and "" as the state before creation. */
const LEGAL = new Map(
  [...MACHINES.values()].map((d) => [
    d.name,
    new Set(machineGraph(d.machine).transitions.map((t) => `${t.from}>${t.to}`)),
  ]),
);

/**
 * A follower of the final chain: every machine transition of each final block, in order, must
 * be a legal move of its machine and start where that instance's last final transition ended
 * (a new instance from nothing): a lifecycle read from final blocks never goes back or skips.
 */
export class LifecycleFollower {
  private readonly at = new Map<string, string>();
  transitions = 0;

  /** Why the block's transitions are not a legal continuation, or undefined. */
  follow(block: Block): string | undefined {
    const events: ChainEvent[] = [...block.results.flatMap((r) => r.events ?? []), ...(block.events ?? [])];
    for (const e of events) {
      if (e.kind !== 'machine.transition') continue;
      this.transitions++;
      const key = `${e.machine}/${e.id}`;
      const was = this.at.get(key);
      const where = `#${block.header.height}: ${e.machine} ${e.id.slice(0, 10)} ${e.from || '(new)'} → ${e.to} on ${e.event}`;
      if ((was ?? '') !== e.from) return `${where}, but its last final state was ${was ?? '(none: it did not exist)'}`;
      const legal = LEGAL.get(e.machine);
      // A creation (from nothing) enters the machine's initial state: the graph lists moves between states only.
      if (!legal) return `${where}: no such machine`;
      if (e.from !== '' && !legal.has(`${e.from}>${e.to}`)) return `${where}: not a move of the machine`;
      this.at.set(key, e.to);
    }
    return undefined;
  }
}
