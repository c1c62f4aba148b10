/** Security sentinel alerts (docs/API.md "GET /security/alerts"). Produced by actors/sentinel/, served by http/. */
export type AlertKind =
  | 'reorg'
  | 'finality_stall'
  | 'double_sign'
  | 'producer_concentration'
  | 'mempool_flood'
  | 'large_transfer'
  | 'validator_degradation'
  | 'storage_failure';

export interface SecurityAlert {
  id: number; // increasing
  kind: AlertKind;
  severity: 'info' | 'warning' | 'critical';
  message: string;
  at: number; // wall-clock ms when raised (node-local; never used by consensus)
  height: number; // head height when raised
  details: Record<string, unknown>;
}

/** Read side of the sentinel. */
export interface AlertSource {
  /** Newest first. */
  recent(limit: number): SecurityAlert[];
}
