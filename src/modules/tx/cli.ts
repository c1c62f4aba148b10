import type { CliFlag } from './entry';

/** CLI flags several modules share (their help texts are part of the CLI's output). */

export const addressFlag = (flag: string, help: string, field = flag): CliFlag => ({ flag, field, kind: 'address', metavar: '<address>', help });

export const textFlag = (flag: string, metavar: string, help: string, field = flag): CliFlag => ({ flag, field, kind: 'text', metavar, help });
