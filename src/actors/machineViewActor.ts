import type { Logger } from 'pino';
import { deadlineOf, loadInstance } from '../machines/instance';
import { stateName } from '../machines/record';
import type { AnyMachineDef } from '../machines/registry';
import type { Head } from '../protocol/chain';
import type { ChainEvent } from '../protocol/events';
import type { Block } from '../protocol/types';
import type { ActionsAt } from '../machines/actions';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { ChainStore } from '../storage/chainStore';
import { ActorRef, behaviorOf } from './actorRef';
import type { DueInstance, MachineViewMsg, MachineViewReplies, OpenInstance } from './protocol';

type Transition = Extract<ChainEvent, { kind: 'machine.transition' }>;

/**
 * The node-side view of one on-chain machine's instances (proposals, bridge transfers, AI
 * tasks), kept by its own actor: the consensus actor hands it each committed block and each
 * undone one, and it keeps which instances are open, in which state, and when each next moves
 * by itself — so `GET /machines/:name/due` and the metrics answer from memory. The
 * transitions themselves stay pure inside block execution (consensus state: docs/LAYERS.md);
 * this actor only reads committed state. It starts from the node-local feed (every instance
 * that ever moved, read at the head), so a restart loses nothing.
 */

export interface MachineViewDeps {
  def: AnyMachineDef;
  /**
   * The module's answer to `?for=` (machine list `actions`); without it, an instance takes no transaction from outside.
   */
  actions?: ActionsAt;
  kv: KvStore;
  store: ChainStore;
  head: () => Head;
  log: Logger;
}

/** The machine's transitions in a block: its transactions' events, then the end-of-block ones. */
const transitionsOf = (block: Block, machine: string): Transition[] =>
  [...block.results.flatMap((r) => r.events ?? []), ...(block.events ?? [])].filter(
    (e): e is Transition => e.kind === 'machine.transition' && e.machine === machine,
  );

export function machineViewBehavior(d: MachineViewDeps) {
  const open = new Map<string, OpenInstance>();
  /** The open instances' snapshots (the `actions` answers are computed from them). */
  const snapshots = new Map<string, unknown>();
  let transitions = 0;
  let height = d.head().height;
  let root = d.head().stateRoot;

  /** Reads instance `id` at `root` into the view (gone or final: out of it). */
  async function refresh(state: StateTrie, id: string): Promise<void> {
    const snap = await loadInstance(state, d.def, id);
    if (!snap || (snap as { status: string }).status === 'done') {
      open.delete(id);
      snapshots.delete(id);
      return;
    }
    open.set(id, { id, status: stateName((snap as { value: unknown }).value as string), at: deadlineOf(d.def, snap) });
    snapshots.set(id, snap);
  }

  /** Whether a state path (a transition's `to`) is final: such an instance never moves again. */
  const isFinal = (path: string): boolean => {
    let node = d.def.machine.root as { states: Record<string, { type: string; states: Record<string, unknown> }> };
    let type = '';
    for (const part of path.split('.')) {
      const next = node.states[part];
      if (!next) return false;
      type = next.type;
      node = next as typeof node;
    }
    return type === 'final';
  };

  async function load(): Promise<void> {
    const head = d.head();
    const state = await StateTrie.open(d.kv, head.stateRoot);
    // Each instance's latest state from the feed: only those not final are read from state.
    const last = new Map<string, string>();
    for (let since = 0; ; ) {
      const page = await d.store.machineFeed(d.def.name, since, 1_000);
      if (page.length === 0) break;
      for (const e of page) last.set(e.id, e.to);
      since = page[page.length - 1].height;
    }
    for (const [id, to] of last) if (!isFinal(to)) await refresh(state, id);
    height = head.height;
    root = head.stateRoot;
    d.log.info({ machine: d.def.name, open: open.size, height }, 'machine view loaded');
  }

  const ready = load();

  return behaviorOf<MachineViewMsg, MachineViewReplies>({
    async committed({ block }) {
      await ready;
      const moved = transitionsOf(block, d.def.name);
      transitions += moved.length;
      height = block.header.height;
      root = block.header.stateRoot;
      if (moved.length === 0) return;
      const state = await StateTrie.open(d.kv, block.header.stateRoot);
      for (const id of new Set(moved.map((e) => e.id))) await refresh(state, id);
    },
    async undone({ blocks, head }) {
      await ready;
      const moved = blocks.flatMap((b) => transitionsOf(b, d.def.name));
      transitions -= moved.length;
      const ids = new Set(moved.map((e) => e.id));
      height = head.height;
      root = head.stateRoot;
      if (ids.size === 0) return;
      const state = await StateTrie.open(d.kv, head.stateRoot);
      for (const id of ids) await refresh(state, id);
    },
    async due({ limit }) {
      await ready;
      const due = [...open.values()]
        .filter((o): o is DueInstance => o.at !== null)
        .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
        .slice(0, limit);
      return { height, due };
    },
    // A final instance (or none) takes nothing; an open one: the module's answer at this view's height.
    async actions({ id, who }) {
      await ready;
      const snap = snapshots.get(id);
      if (!snap || !d.actions) return { actions: [], at: height };
      return { actions: await d.actions(await StateTrie.open(d.kv, root), id, snap, who, height + 1), at: height };
    },
    async stats() {
      await ready;
      const byStatus: Record<string, number> = {};
      for (const o of open.values()) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
      return { machine: d.def.name, open: byStatus, transitions, height };
    },
  });
}

/** One view actor per on-chain machine (the machine list's entries), named `view:<machine>`. */
export function machineViewActors(
  machines: readonly Pick<MachineViewDeps, 'def' | 'actions'>[],
  deps: Omit<MachineViewDeps, 'def' | 'actions'>,
) {
  return machines.map(({ def, actions }) => {
    const ref = new ActorRef<MachineViewMsg, MachineViewReplies>(`view:${def.name}`, 1_024);
    return { def, ref, spec: { ref, start: async () => machineViewBehavior({ ...deps, def, actions }) } };
  });
}
export type MachineViewActors = ReturnType<typeof machineViewActors>;
