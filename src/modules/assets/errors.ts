import type { Address } from '../../protocol/types';
import { refusals } from '../../protocol/refusal';

/** Refusals of the helpers the asset modules share (tokens, nft, names). */
export const ASSET = refusals('assets', {
  /** An owner-only operation sent by someone else; `what` names the asset ('this token', 'the item', …). */
  ASSET_NOT_OWNER: (m: { what: string; owner: Address; sender: Address }) => `only the owner of ${m.what} may do this`,
});
