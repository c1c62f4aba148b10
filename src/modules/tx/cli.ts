import type { CliFlag } from './entry';

/** CLI flags several modules share (their help texts are part of the CLI's output). */

export const addressFlag = (flag: string, help: string, field = flag): CliFlag => ({
  flag,
  field,
  kind: 'address',
  metavar: '<address>',
  help,
});

export const textFlag = (flag: string, metavar: string, help: string, field = flag): CliFlag => ({
  flag,
  field,
  kind: 'text',
  metavar,
  help,
});

/** Native coins in base units (the envelope amount, or a data field of coins). */
export const coinsFlag = (flag: string, help: string, field = flag, optional = false): CliFlag => ({
  flag,
  field,
  kind: 'coins',
  metavar: '<n>',
  help: `${help}, in base units (1 coin = 1000000)`,
  ...(optional ? { optional } : {}),
});
