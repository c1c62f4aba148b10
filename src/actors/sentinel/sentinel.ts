import type { SignedBlockHeader } from '../../protocol/types';
import { ActorRef } from '../actorRef';
import type { AlertKind, AlertSource, SecurityAlert } from './alerts';
import type { SentinelMsg } from '../protocol';
import type { ChildSpec } from '../supervisor';
import { AlertLog } from './alertLog';
import { type SentinelDeps, sentinelBehavior } from './sentinelBehavior';
import type { SentinelView } from './sentinelView';

export interface SentinelConfig extends Omit<SentinelDeps, 'alerts' | 'view'> {
  view: SentinelView;
  /** Ring size of recent alerts. */
  capacity?: number;
}

/**
 * The sentinel as the node sees it: the alert ring (which outlives restarts of the actor),
 * the actor's ref and child spec for the supervisor, and the feeds that drive it.
 */
export class Sentinel implements AlertSource {
  readonly ref = new ActorRef<SentinelMsg>('sentinel', 1_024);
  readonly alerts: AlertLog;
  private readonly cursor: { height: number };

  constructor(private readonly c: SentinelConfig) {
    this.cursor = { height: c.view.head.height };
    this.alerts = new AlertLog(c.log, c.capacity ?? 1_000, c.now);
  }

  /** Permanent child: a crash restarts it with its detection state rebuilt from the read model. */
  childSpec(): ChildSpec<SentinelMsg> {
    return {
      ref: this.ref,
      start: async () => sentinelBehavior({ ...this.c, alerts: this.alerts, cursor: this.cursor }),
    };
  }

  /** Subscribes to new heads and starts the periodic checks; returns the disconnect. */
  connect(tickMs = 1_000): () => void {
    const off = this.c.view.onHead((head) => this.ref.send({ type: 'head', head }));
    const timer = setInterval(() => {
      if (this.ref.queued < 8) this.ref.send({ type: 'tick' });
    }, tickMs);
    timer.unref();
    return () => {
      off();
      clearInterval(timer);
    };
  }

  /** A signed header seen outside this node's own production (the gossip path). */
  observeHeader(h: SignedBlockHeader): void {
    this.ref.send({ type: 'header', header: h });
  }

  /** An alert raised by the node itself (e.g. a storage failure). */
  raise(
    kind: AlertKind,
    severity: SecurityAlert['severity'],
    message: string,
    details: Record<string, unknown> = {},
  ): SecurityAlert {
    return this.alerts.raise(kind, severity, message, this.c.view.head.height, details);
  }

  recent(limit: number): SecurityAlert[] {
    return this.alerts.recent(limit);
  }
}
