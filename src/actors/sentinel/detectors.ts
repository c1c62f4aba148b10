import type { Detector, DetectorContext } from './detector';
import { doubleSignDetector } from './doubleSign';
import { finalityStallDetector } from './finalityStall';
import { largeTransferDetector } from './largeTransfer';
import { mempoolFloodDetector } from './mempoolFlood';
import { producerConcentrationDetector } from './producerConcentration';
import { reorgDetector } from './reorg';
import { validatorDegradationDetector } from './validatorDegradation';

/**
 * Every detector, in the order each hears an observation: alerts raised by one observation
 * come out in this order (a block's double signature before its large transfers; the
 * stall clocks, then producer shares, on a new head). `storage_failure` has no detector:
 * the node reports it itself through `Sentinel.raise`.
 */
export function createDetectors(ctx: DetectorContext): Detector[] {
  return [
    reorgDetector(ctx),
    finalityStallDetector(ctx),
    producerConcentrationDetector(ctx),
    validatorDegradationDetector(ctx),
    doubleSignDetector(ctx),
    largeTransferDetector(ctx),
    mempoolFloodDetector(ctx),
  ];
}
