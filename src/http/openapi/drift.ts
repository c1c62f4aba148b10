import type { BlockIntake, DevControls, DevSnapshot, PeerInfo, SecurityAlert, SubmitOutcome } from '../../api/ports';
import type { ContractMetadata } from '../../contracts/verify';
import type { Gateway } from '../gateway';
import type { GuardBlockView, Offence } from '../guard';
import type {
  BlockIntakeView, ContractMetadataView, DevMined, DevRevertedView, DevSnapshotView, GatewayView, GuardBlock, GuardOffence, PeerView,
  SecurityAlertView, SubmitVerdictView,
} from '../../views';

/**
 * Compile-time only. Some shapes the API serves are declared below views/ (actors/, api/,
 * contracts/, http/), where views/ may not import from; views/ restates them for the OpenAPI
 * document and the SDK. Each pair must stay mutually assignable: a field added, removed or
 * retyped on either side fails `tsc` here instead of leaving docs/openapi.json wrong.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <A, B>(ok: Same<A, B>) => ok;

type Verdict = Extract<SubmitOutcome, { kind: 'verdict' }>['verdict'];
type Intake = Extract<Awaited<ReturnType<BlockIntake>>, { status: 200 }>['body'];

export const DRIFT_CHECKS = [
  same<PeerView, PeerInfo>(true),
  same<SecurityAlertView, SecurityAlert>(true),
  same<ContractMetadataView, ContractMetadata>(true),
  same<DevSnapshotView, DevSnapshot>(true),
  same<DevMined, Awaited<ReturnType<DevControls['mine']>>>(true),
  same<DevRevertedView, Awaited<ReturnType<DevControls['revert']>>>(true),
  same<SubmitVerdictView, Verdict>(true),
  same<BlockIntakeView, Intake>(true),
  same<GuardBlock, GuardBlockView>(true),
  same<GuardOffence, Offence>(true),
  same<Omit<GatewayView, 'rateLimit' | 'guard'>, ReturnType<Gateway['snapshot']>>(true),
] as const;
