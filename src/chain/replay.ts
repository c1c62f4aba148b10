import { canonicalJson } from '../primitives/canonical';
import { applyTx } from './applyTx';
import type { ExecState } from '../protocol/execState';
import type { Network } from '../protocol/network';
import { finishBlock } from './finishBlock';
import type { Block } from '../protocol/types';

/**
 * Re-executes a block of chain `network` on its parent state (import and replay). Every transaction must
 * apply with the recorded outcome; the caller compares the resulting root with the header.
 * `nestedVerified`: the caller checked every signature of the block's transactions in the
 * verify pool, nested ones included (BlockContext).
 */
export async function applyBlock(
  state: ExecState,
  block: Block,
  network: Network,
  opts: { nestedVerified?: boolean } = {},
): Promise<string | undefined> {
  const { header, txs, results } = block;
  if (txs.length !== results.length || txs.length !== header.txCount) return 'transaction count mismatch';
  const ctx = {
    height: header.height,
    timestamp: header.timestamp,
    producer: header.producer,
    network,
    nestedVerified: opts.nestedVerified,
  };
  let burned = 0n;
  for (let i = 0; i < txs.length; i++) {
    const v = await applyTx(state, txs[i], ctx);
    if (v.kind !== 'applied') return `transaction ${txs[i].id} cannot be included: ${v.refusal.reason}`;
    // The whole recorded result (events and VM receipt included: indexes are built from them) must be what execution
    // gives.
    if (canonicalJson(JSON.parse(JSON.stringify(v.result))) !== canonicalJson(results[i])) {
      return `transaction ${txs[i].id} outcome differs from the block`;
    }
    burned += v.burned;
  }
  const events = await finishBlock(state, {
    height: header.height,
    producer: header.producer,
    burned,
    abstain: header.abstain,
  });
  if (canonicalJson(events) !== canonicalJson(block.events ?? [])) return 'end-of-block events differ from the block';
  return undefined;
}
