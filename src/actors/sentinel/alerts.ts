/** Security sentinel alerts (docs/API.md "GET /security/alerts"). Produced by actors/sentinel/, served by http/. */
import type { SecurityAlertView } from '../../views';

export type AlertKind = SecurityAlertView['kind'];

/** An alert as the sentinel raises it and GET /security/alerts serves it. */
export type SecurityAlert = SecurityAlertView;

/** Read side of the sentinel. */
export interface AlertSource {
  /** Newest first. */
  recent(limit: number): SecurityAlert[];
}
