import type { BlockIntake, DevControls, DevSnapshot, SecurityAlert, SubmitOutcome } from '../../api/ports';
import type { Gateway } from '../gateway';
import type {
  BlockIntakeView, DevMined, DevRevertedView, DevSnapshotView, GatewayView,
  SecurityAlertView, SubmitVerdictView,
} from '../../views';

/**
 * Compile-time only. Some shapes the API serves are declared in api/ and http/, where views/
 * may not import from; views/ restates them for the OpenAPI
 * document and the SDK. Each pair must stay mutually assignable: a field added, removed or
 * retyped on either side fails `tsc` here instead of leaving docs/openapi.json wrong.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <A, B>(ok: Same<A, B>) => ok;

type Verdict = Extract<SubmitOutcome, { kind: 'verdict' }>['verdict'];
type Intake = Extract<Awaited<ReturnType<BlockIntake>>, { status: 200 }>['body'];

export const DRIFT_CHECKS = [
  same<SecurityAlertView, SecurityAlert>(true),
  same<DevSnapshotView, DevSnapshot>(true),
  same<DevMined, Exclude<Awaited<ReturnType<DevControls['mine']>>, { refused: string }>>(true),
  same<DevRevertedView, Awaited<ReturnType<DevControls['revert']>>>(true),
  same<SubmitVerdictView, Verdict>(true),
  same<BlockIntakeView, Intake>(true),
  same<Omit<GatewayView, 'rateLimit' | 'guard'>, ReturnType<Gateway['snapshot']>>(true),
] as const;
