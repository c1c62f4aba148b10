import type { Detector, DetectorContext } from './detector';

const WEI_PER_BASE_UNIT = 10n ** 12n;

/**
 * `large_transfer`: an executed transaction, or an inner VM transfer, moved at least
 * `largeTransfer` base units. One alert per transfer. Only blocks carrying transactions
 * are read whole.
 */
export function largeTransferDetector(ctx: DetectorContext): Detector {
  const o = ctx.options;
  return {
    async committed(sum) {
      if (sum.txCount === 0) return;
      const b = await ctx.store.block(sum.height);
      if (!b || b.header.hash !== sum.hash) return;
      b.txs.forEach((tx, i) => {
        if (b.results[i]?.status !== 'success' || !/^\d{1,78}$/.test(tx.amount)) return;
        const amount = BigInt(tx.amount);
        if (amount >= o.largeTransfer) {
          ctx.raise('large_transfer', 'warning', `transaction ${tx.id} moved ${amount} base units`, {
            txId: tx.id,
            type: tx.type,
            from: tx.from,
            to: tx.to,
            amount: amount.toString(),
            blockHeight: sum.height,
          });
        }
        for (const t of b.results[i].vm?.internal ?? []) {
          if (!/^\d{1,96}$/.test(t.amountWei)) continue;
          const base = BigInt(t.amountWei) / WEI_PER_BASE_UNIT;
          if (base < o.largeTransfer) continue;
          ctx.raise(
            'large_transfer',
            'warning',
            `an inner VM transfer of transaction ${tx.id} moved ${base} base units`,
            {
              txId: tx.id,
              kind: t.kind,
              from: t.from,
              to: t.to,
              amount: base.toString(),
              blockHeight: sum.height,
            },
          );
        }
      });
    },
  };
}
