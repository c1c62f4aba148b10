/**
 * libp2p 3 calls `Promise.withResolvers` (ES2024), which Node 22 has and Node 20 (Cairn's floor, package.json
 * engines) lacks. Defined here, to the letter of the specification, before anything of libp2p loads: host.ts
 * imports this module first.
 */
type WithResolvers = <T>() => {
  promise: Promise<T>;
  resolve: (v: T | PromiseLike<T>) => void;
  reject: (e: unknown) => void;
};

const P = Promise as unknown as { withResolvers?: WithResolvers };
if (typeof P.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (v: T | PromiseLike<T>) => void;
      let reject!: (e: unknown) => void;
      const promise = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

export {};
