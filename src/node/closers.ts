import type { Logger } from 'pino';

/** What the node opened, closed in reverse order of opening; a close that fails is logged and the rest still close. */
export class Closers {
  private readonly list: { name: string; close: () => Promise<void> }[] = [];

  constructor(private readonly log: Logger) {}

  push(name: string, close: () => Promise<void>): void {
    this.list.push({ name, close });
  }

  async closeAll(): Promise<void> {
    for (const c of this.list.splice(0).reverse()) {
      try {
        await c.close();
      } catch (e) {
        this.log.error({ err: e, what: c.name }, 'close failed during shutdown');
      }
    }
  }
}
