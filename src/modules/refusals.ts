import { MACHINE } from '../machines/refusals';
import { COMMITTEE } from '../protocol/bridge';
import { GOVERNED } from '../protocol/permissions';
import type { RefusalCatalog } from '../protocol/refusal';
import { TX } from '../protocol/txRefusals';
import { AI } from './ai/errors';
import { ASSET } from './assets/errors';
import { BRIDGE } from './bridge/errors';
import { GOVERNANCE } from './governance/errors';
import { NAME } from './names/errors';
import { NFT } from './nft/errors';
import { PERMISSIONS } from './permissions/errors';
import { RELAY } from './relay/errors';
import { RESOURCE } from './resources/errors';
import { STAKING } from './staking/errors';
import { TOKEN } from './tokens/errors';
import { VESTING } from './vesting/errors';
import { VM } from './vm/errors';

/**
 * Every refusal catalog of the protocol: admission and inclusion (tx), the machine kit, then
 * each module's. docs/API.md "Refusal codes" is generated from this list, and a test checks
 * that no code is declared twice. Adding a module's catalog is one line here.
 */
export const REFUSAL_CATALOGS: readonly RefusalCatalog[] = [
  TX,
  MACHINE,
  AI,
  ASSET,
  TOKEN,
  NFT,
  NAME,
  VESTING,
  RESOURCE,
  STAKING,
  GOVERNANCE,
  PERMISSIONS,
  GOVERNED,
  RELAY,
  BRIDGE,
  COMMITTEE,
  VM,
].map((c) => c.catalog);
