/**
 * Your own workload and invariant through the network simulator (sim/world.ts `SimExtension`): on simulated time, with
 * partitions, crashes, clock skew and a byzantine validator, simulated clients race to register a handful of names,
 * and every node's final chain is checked to never give one name to two owners — whatever forks, reorganizations and
 * restarts happened on the way. A failure prints its seed and the command that replays it, trace and all.
 *
 *   npx tsx examples/sim-names.ts [--seeds 5] [--from 1] [--validators 4]
 *
 * The pieces: `slot` (each slot, your clients send transactions: `send(user, input)`, drawing from `rng`, a stream
 * of their own), `final` (each block a node reports final, in order: return why it breaks your invariant) and `end`
 * (after the faults healed and finality moved again: a last look at the honest nodes).
 */
import { parseArgs } from 'node:util';
import { NAME_REGISTRATION_COST } from '../src/protocol/params';
import type { TxInput } from '../src/sdk';
import { summary } from '../sim/run';
import { DEFAULT_OPTIONS, simulate, type SimExtension } from '../sim/world';

const NAMES = ['alice', 'bob', 'carol'];

/** The extension: a fresh one per run (it keeps what each node's final chain has registered). */
export function nameRace(): SimExtension & { registered: () => number } {
  const owners = new Map<string, Map<string, string>>(); // node → name → owner
  return {
    async slot(c) {
      if (!c.rng.chance(400)) return;
      const name = NAMES[c.rng.int(NAMES.length)];
      await c.send(c.rng.int(c.users.length), {
        type: 'NAME_REGISTER',
        name,
        amount: NAME_REGISTRATION_COST,
      } as TxInput);
    },
    final(node, block) {
      const mine = owners.get(node.name) ?? new Map<string, string>();
      owners.set(node.name, mine);
      for (const [i, tx] of block.txs.entries()) {
        if (tx.type !== 'NAME_REGISTER' || block.results[i]?.status !== 'success') continue;
        const name = (tx.data as { name: string }).name;
        const before = mine.get(name);
        if (before) return `name ${name} registered to ${tx.from} in tx ${tx.id}, already ${before}'s`;
        mine.set(name, tx.from);
      }
      return undefined;
    },
    /** Names registered on the final chain of the node that has the most. */
    registered: () => Math.max(0, ...[...owners.values()].map((m) => m.size)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      seeds: { type: 'string', default: '5' },
      from: { type: 'string', default: '1' },
      validators: { type: 'string', default: '4' },
    },
  });
  let failed = 0;
  for (let seed = Number(values.from); seed < Number(values.from) + Number(values.seeds); seed++) {
    const race = nameRace();
    const r = await simulate({ ...DEFAULT_OPTIONS, seed, validators: Number(values.validators) }, race);
    console.log(`${summary(r)}; names registered on a final chain: ${race.registered()}`);
    if (r.failure) {
      failed++;
      // The replay: this script on that seed alone (`npm run sim` knows nothing of this extension).
      const { validators } = r.options;
      console.log(
        `${r.trace.slice(-20).join('\n')}\nreplay: npx tsx examples/sim-names.ts --seeds 1 --from ${seed} --validators ${validators}`,
      );
    }
  }
  process.exitCode = failed ? 1 : 0;
}
