/**
 * The security sentinel (docs/API.md "GET /security/alerts"): a node actor that watches the chain and
 * the mempool and raises alerts. It only reads (committed blocks from the ChainStore, the
 * published head, mempool statistics) and never feeds anything back into consensus.
 *
 * Each condition that lasts (a stall, a flood, a concentrated producer, a degraded
 * validator) raises one alert when it begins and re-arms once it has cleared, so a
 * lasting condition does not flood the ring. One-off events (a reorganization, a double
 * signature, a large transfer) raise one alert each.
 *
 *   Sentinel (sentinel.ts)          the alert ring, the actor's ref and child spec, its feeds
 *     └ sentinelBehavior            follows the chain, feeds each observation to…
 *         └ detectors.ts            …one detector per alert kind, behind `Detector` (detector.ts)
 */
export { AlertLog } from './alertLog';
export type { Detector, DetectorContext, Reorg } from './detector';
export { type SentinelOptions, defaultSentinelOptions } from './options';
export { Sentinel, type SentinelConfig } from './sentinel';
export { type SentinelDeps, sentinelBehavior } from './sentinelBehavior';
export type { SentinelView } from './sentinelView';
