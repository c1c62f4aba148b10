/**
 * A value that may already be at hand. The hot reads (a memoized /status, a cached final
 * transaction) answer synchronously, so that a request costs no promise and no microtask;
 * what has to wait on the store stays a promise.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `f` applied to `v` now if it is at hand, else when it settles. */
export const andThen = <T, U>(v: MaybePromise<T>, f: (t: T) => MaybePromise<U>): MaybePromise<U> =>
  v instanceof Promise ? v.then(f) : f(v);
