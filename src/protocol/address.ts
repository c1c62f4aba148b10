import type { Hex } from '../primitives/hex';

/** 20-byte account address, lower-case 0x hex. */
export type Address = Hex;
