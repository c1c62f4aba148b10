import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { CairnError } from '../errors/CairnError';

/** Permission bits for anyone but the file's owner: a secret file with any of them set is refused. */
const OTHERS = 0o077;

/**
 * Reads a file holding a secret (a validator key, the admin token), refusing one that other users of
 * the machine may read or change, as ssh does for a private key: `cairn keygen > key.json` under
 * the usual umask 022 makes a file every user can read. `allowInsecure` (--allow-insecure-key-file)
 * is the operator's explicit choice to start anyway.
 */
export function readSecretFile(flag: string, file: string, allowInsecure: boolean): string {
  let mode: number;
  let text: string;
  try {
    // The mode and the bytes of one open file: a file swapped between a stat and a read cannot pass the check.
    const fd = openSync(file, 'r');
    try {
      mode = fstatSync(fd).mode;
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new CairnError('CONFIG', `${flag}: cannot read ${file}: ${(e as Error).message}`, { file }, { cause: e });
  }
  if ((mode & OTHERS) !== 0 && !allowInsecure)
    throw new CairnError(
      'CONFIG',
      `${flag} ${file} can be read by other users of this machine (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): ` +
        `run "chmod 600 ${file}" (and move the secret elsewhere if others may have read it), or start with ` +
        '--allow-insecure-key-file',
      { file, mode: mode & 0o777 },
    );
  return text;
}
