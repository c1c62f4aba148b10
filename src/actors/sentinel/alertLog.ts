import type { Logger } from 'pino';
import type { AlertKind, AlertSource, SecurityAlert } from './alerts';

/** Bounded ring of recent alerts, newest first; each alert is also logged (warn, or error when critical). */
export class AlertLog implements AlertSource {
  private readonly ring: (SecurityAlert | undefined)[];
  private nextId = 1;
  private count = 0;

  constructor(
    private readonly log: Logger,
    readonly capacity = 1_000,
    private readonly now: () => number = Date.now,
  ) {
    this.ring = new Array(capacity);
  }

  get size(): number {
    return Math.min(this.count, this.capacity);
  }

  raise(
    kind: AlertKind,
    severity: SecurityAlert['severity'],
    message: string,
    height: number,
    details: Record<string, unknown> = {},
  ): SecurityAlert {
    const alert: SecurityAlert = { id: this.nextId++, kind, severity, message, at: this.now(), height, details };
    this.ring[this.count % this.capacity] = alert;
    this.count++;
    const fields = { alert: { id: alert.id, kind, severity, height, details } };
    if (severity === 'critical') this.log.error(fields, `security alert: ${message}`);
    else this.log.warn(fields, `security alert: ${message}`);
    return alert;
  }

  recent(limit: number): SecurityAlert[] {
    const n = Math.max(0, Math.min(Math.floor(limit) || 0, this.size));
    const out: SecurityAlert[] = [];
    for (let i = 1; i <= n; i++) out.push(this.ring[(this.count - i) % this.capacity]!);
    return out;
  }
}
