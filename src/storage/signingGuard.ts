import { open, readFile, rename } from 'node:fs/promises';
import { CairnError } from '../errors/CairnError';
import { writeFailure } from './rocks';

/**
 * Double-sign protection, on by default: the height and slot of the last block this
 * validator signed, persisted (written and fsynced, then renamed into place) after the block
 * is committed and before it leaves the node (a block whose commit failed was seen by nobody). The producer never signs
 * at or below either again — across restarts, and
 * after a reorganization took its block away (a second header at one height is slashable).
 */
export interface LastSigned {
  height: number;
  slot: number;
}

export class SigningGuard {
  private constructor(
    private readonly file: string,
    private last: LastSigned,
  ) {}

  static async open(file: string): Promise<SigningGuard> {
    let text: string | undefined;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new CairnError(
          'STORAGE_OPEN',
          `cannot read ${file}: ${(e as Error).message}`,
          { dir: file },
          { cause: e },
        );
    }
    let last: LastSigned = { height: 0, slot: -1 };
    if (text !== undefined) {
      const v = JSON.parse(text) as Partial<LastSigned>;
      if (!Number.isSafeInteger(v.height) || !Number.isSafeInteger(v.slot))
        throw new CairnError(
          'STORAGE_OPEN',
          `${file} is damaged: remove it only if this validator key signs nowhere else`,
          { dir: file },
        );
      last = { height: v.height!, slot: v.slot! };
    }
    return new SigningGuard(file, last);
  }

  get lastSigned(): Readonly<LastSigned> {
    return this.last;
  }

  /** Why this validator must not sign a block at `height` in `slot`, or undefined. */
  refusal(height: number, slot: number): string | undefined {
    if (height <= this.last.height) return `already signed a block at height ${this.last.height}`;
    if (slot <= this.last.slot) return `already signed in slot ${this.last.slot}`;
    return undefined;
  }

  /**
   * A --dev node reverted its own chain to the block at `height` in `slot` (POST /dev/revert):
   * it may sign after it again. Never used on a network: a second header at a height is
   * slashable there.
   */
  async forgetAbove(height: number, slot: number): Promise<void> {
    if (height < this.last.height) await this.record(height, Math.min(slot, this.last.slot));
  }

  /** Records the signature durably; throws (nothing signed leaves) when it cannot. */
  async record(height: number, slot: number): Promise<void> {
    const tmp = `${this.file}.tmp`;
    try {
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.writeFile(`${JSON.stringify({ height, slot })}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, this.file);
    } catch (e) {
      throw new CairnError(
        'STORAGE_WRITE',
        `cannot record the last signed block in ${this.file}: ${writeFailure(e)}`,
        { dir: this.file },
        { cause: e },
      );
    }
    this.last = { height, slot };
  }
}
