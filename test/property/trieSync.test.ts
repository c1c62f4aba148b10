import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Address } from '../../src/protocol/types';
import { emptyAccount } from '../../src/state/account';
import { MemoryKv } from '../../src/state/kv';
import { StateTrie } from '../../src/state/stateTrie';
import { isNodeKey } from '../../src/state/trieGc';
import { nodeKey } from '../../src/state/trieNodes';
import { TrieSync } from '../../src/state/trieSync';

const addr = (i: number): Address => `0x${(i + 1).toString(16).padStart(40, '0')}`;

/** What a peer answers for one asked node: the node, nothing, or other bytes (a liar or a damaged store). */
type Answer = 'node' | 'none' | 'garbage' | 'another node';

/**
 * State sync's walk against peers that answer at random: whatever they do, the nodes kept are exactly the source's
 * nodes under the root (none other is ever accepted), and once done every account reads as in the source.
 */
describe('TrieSync (state/trieSync.ts)', () => {
  it('ends with exactly the trie the root names, whatever the peers answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.nat({ max: 500 }), { minLength: 0, maxLength: 60 }),
        fc.infiniteStream(fc.constantFrom<Answer>('node', 'node', 'node', 'none', 'garbage', 'another node')),
        fc.integer({ min: 1, max: 40 }),
        async (accounts, answers, chunk) => {
          const src = new MemoryKv();
          const trie = await StateTrie.open(src, null);
          for (const i of accounts) await trie.putAccount(addr(i), { ...emptyAccount(), balance: BigInt(i + 1) });
          const batch = src.batch();
          const root = await trie.flush(batch);
          await src.write(batch);
          trie.settle();
          const sourceNodes = new Map<string, Uint8Array>();
          for await (const [k, v] of src.iterate({}))
            if (isNodeKey(k)) sourceNodes.set(Buffer.from(k).toString('hex'), v);
          const any = [...sourceNodes.values()];

          const dst = new MemoryKv();
          const sync = new TrieSync(root);
          const it = answers[Symbol.iterator]();
          for (let rounds = 0; !sync.done; rounds++) {
            expect(rounds).toBeLessThan(100_000);
            const asked = await sync.fromStore(dst, sync.take(chunk));
            const b = dst.batch();
            const again: Uint8Array[] = [];
            for (const h of asked) {
              const real = sourceNodes.get(Buffer.from(nodeKey(Buffer.from(h).toString('hex'))).toString('hex'));
              const a = it.next().value as Answer;
              const bytes =
                a === 'node'
                  ? real
                  : a === 'garbage'
                    ? Uint8Array.of(0xc2, 0x80, 0x80)
                    : a === 'another node'
                      ? any[(h[0] + h[1]) % any.length]
                      : undefined;
              if (bytes && sync.accept(h, bytes)) b.put(nodeKey(Buffer.from(h).toString('hex')), bytes);
              else again.push(h);
            }
            await dst.write(b);
            sync.retry(again);
          }
          // Only the source's nodes, each under its own hash; and the state reads whole.
          for await (const [k, v] of dst.iterate({}))
            expect(Buffer.compare(v, sourceNodes.get(Buffer.from(k).toString('hex')) ?? new Uint8Array())).toBe(0);
          const mine = await StateTrie.open({ get: (k) => dst.get(k) }, root);
          for (const i of accounts) expect((await mine.getAccount(addr(i)))?.balance).toBe(BigInt(i + 1));
        },
      ),
      { numRuns: 150 },
    );
  });
});
