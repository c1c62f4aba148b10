import type { Logger } from 'pino';
import type { ModesActor } from '../actors/modesActor';
import type { Sentinel } from '../actors/sentinel';
import type { Supervisor } from '../actors/supervisor';
import { type CairnError, isCairnError } from '../errors/CairnError';
import type { Closers } from './closers';

/**
 * How a node stops, once, whoever asks (the operator, a failed start, an escalation): the
 * modes say stopping (not ready from there on), the timers stop, the servers stop taking
 * requests, the supervisor stops the actors in reverse order of starting (the consensus actor
 * finishes the block it is writing), then what was opened closes (worker pools, store,
 * compiler).
 */
export function nodeShutdown(d: {
  log: Logger;
  modes: ModesActor;
  /** Timers and subscriptions, stopped first. */
  halts: (() => void)[];
  /** Close the servers (HTTP, JSON-RPC), in this order. */
  servers: (() => Promise<void>)[];
  supervisor: Supervisor;
  closers: Closers;
  height: () => number;
}) {
  let stopping: Promise<void> | null = null;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  /** `failed`: the node stops by itself for `reason` (the modes' `failure`). */
  function stop(reason = 'requested', failed = false): Promise<void> {
    stopping ??= (async () => {
      d.log.info({ reason }, 'node stopping');
      await d.modes.ref.ask({ type: 'STOP', reason, failure: failed }).catch(() => undefined);
      for (const halt of d.halts.splice(0)) halt();
      try {
        for (const close of d.servers) await close(); // stop taking requests first
        await d.supervisor.stop();
      } catch (e) {
        d.log.error({ err: e }, 'error while stopping');
      }
      await d.closers.closeAll();
      d.log.info({ height: d.height() }, 'node stopped');
      resolveStopped();
    })();
    return stopping;
  }
  return { stop, stopped, stopping: () => stopping !== null };
}

/** A storage failure is an escalation whose cause is a failed write or open of the store. */
const isStorageFailure = (e: unknown): e is CairnError =>
  isCairnError(e) && (e.code === 'STORAGE_WRITE' || e.code === 'STORAGE_OPEN');

/**
 * The supervisor's escalation (a critical actor crashed, or one crashed too often): the node
 * stops, failed. A storage failure says so, and the sentinel raises it: nothing of the failed
 * batch was applied, so the store still ends at the last committed block.
 */
export function escalation(d: {
  log: Logger;
  height: () => number;
  sentinel: () => Sentinel | undefined;
  stop: (reason: string, failed: boolean) => Promise<void>;
}) {
  return (reason: string, err: unknown): void => {
    if (isStorageFailure(err)) {
      const failure = `storage failure: ${err.message}`;
      const height = d.height();
      d.log.error(
        { dir: err.meta.dir, reason: err.meta.reason, height },
        `${failure}; stopping the node (the store keeps block ${height})`,
      );
      d.sentinel()?.raise('storage_failure', 'critical', err.message, {
        dir: err.meta.dir,
        reason: err.meta.reason,
        code: err.meta.code,
        lastCommitted: height,
      });
      return void d.stop(failure, true);
    }
    d.log.fatal({ err, reason }, 'supervision escalated: stopping the node');
    void d.stop(reason, true);
  };
}
