/**
 * The one way a test waits: poll `f` until it returns something truthy (returned), and fail
 * with `what` once `timeoutMs` has passed. Never a bare sleep, never a poll without a deadline.
 */
export async function waitUntil<T>(
  f: () => Promise<T | undefined | false | null> | T | undefined | false | null,
  timeoutMs = 20_000,
  pollMs = 50,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** The same, described first (the adversarial tests' form). */
export const waitFor = <T>(
  what: string,
  f: () => Promise<T | undefined | false | null> | T | undefined | false | null,
  timeoutMs = 30_000,
  pollMs = 50,
): Promise<T> => waitUntil(f, timeoutMs, pollMs, what);
