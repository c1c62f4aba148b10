import { expect } from 'vitest';

/**
 * Starts a long-running example (oracle, relayer) against a node that answers 503, lets it
 * settle into waiting, stops it, and checks run() ends soon after (no retrying after SIGTERM).
 */
export async function expectStopsPromptly(x: { run(): Promise<unknown>; stop(): void }): Promise<void> {
  const running = x.run();
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  x.stop();
  await running;
  expect(Date.now() - t0).toBeLessThan(1_500);
}
