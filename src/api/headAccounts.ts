import type { AccountState, Address } from '../protocol/types';
import type { Hex } from '../primitives/hex';
import type { KvStore } from '../state/kv';
import { StateTrie } from '../state/stateTrie';
import type { ReadModel } from './ports';

/**
 * Accounts at the published head for the mempool's stateful admission rules, cached per
 * head: the cache is dropped as soon as a new head is published, and a read that raced a
 * commit is not cached under the newer root.
 */
export class HeadAccounts {
  private cache = new Map<Address, AccountState | undefined>();
  private cacheRoot: Hex;

  constructor(
    private readonly kv: KvStore,
    private readonly view: ReadModel,
  ) {
    this.cacheRoot = view.head.stateRoot;
  }

  async read(addr: Address): Promise<AccountState | undefined> {
    const root = this.view.head.stateRoot;
    if (root !== this.cacheRoot) {
      this.cache = new Map();
      this.cacheRoot = root;
    }
    if (this.cache.has(addr)) return this.cache.get(addr);
    const a = await (await StateTrie.open(this.kv, root)).getAccount(addr);
    if (root === this.cacheRoot) this.cache.set(addr, a);
    return a;
  }
}
