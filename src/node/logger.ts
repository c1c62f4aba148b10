import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat, LogLevel } from '../config/config';

/**
 * The node's logger: pino JSON lines for machines (systemd, containers, log shippers), or
 * readable single lines for a person at a terminal. `auto` picks readable lines when stdout
 * is a TTY. Both carry the same fields; the readable form is written synchronously (no
 * worker thread), so nothing is lost when the process exits.
 */
export function createLogger(
  level: LogLevel,
  format: LogFormat,
  isTTY = process.stdout.isTTY === true,
  destination: NodeJS.WritableStream = process.stdout,
): Logger {
  const opts = { level, base: { node: 'cairn' } };
  if (format === 'json' || (format === 'auto' && !isTTY))
    return destination === process.stdout ? pino(opts) : pino(opts, destination);
  return pino(
    opts,
    pretty({
      colorize: isTTY,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,node',
      sync: true,
      destination,
    }),
  );
}
