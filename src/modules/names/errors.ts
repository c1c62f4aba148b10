import { refusals } from '../../protocol/refusal';

/** Why the name types are refused (owner-only checks refuse with ASSET_NOT_OWNER, assets/errors.ts). */
export const NAME = refusals('names', {
  NAME_ALREADY_REGISTERED: (_m: { name: string }) => 'name already registered',
  NAME_NOT_REGISTERED: (_m: { name: string }) => 'name not registered',
});
