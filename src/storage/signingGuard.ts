import { open, readFile, rename } from 'node:fs/promises';
import { CairnError } from '../errors/CairnError';
import { signedVote, voteRefusal, type NextVote, type SignedVote } from '../consensus/checkpoints';
import { writeFailure } from './rocks';

/**
 * Double-sign protection, on by default: the heights and the slot of the blocks this validator
 * signed, persisted (written and fsynced, then renamed into place) after the block is committed
 * and before it leaves the node (a block whose commit failed was seen by nobody). The producer
 * never signs again in or before a slot it signed, nor at a height it signed — across restarts,
 * and after a reorganization took its block away (a second header at one height is slashable:
 * SLASH_DOUBLE_SIGN's evidence is one producer and one height).
 *
 * Heights it did not sign stay open, below the last one too. A chain adopted after a partition
 * can be lower than the branch a validator signed on; refusing every height up to its last one
 * sat most of the set out until the chain climbed past them (the simulator's seed 35657,
 * 21 validators: 89 slots unsigned, final again 148 slots after the heal). The last
 * SIGNED_HEIGHTS_KEPT heights are kept; at or below the lowest of those (`floor`) it never signs.
 *
 * It also keeps the last finality vote (consensus/checkpoints.ts): every block votes for its
 * epoch's checkpoint from a justified source, and finality is safe only because an honest
 * validator never votes for two checkpoints of one epoch, nor from a source older than one it
 * already used (after a vote from epoch s, one from an older source would surround it). A block
 * at a lower height than the last vote's abstains (producerActor.ts).
 */
export interface LastSigned {
  /** The highest height signed (a file from before `signed` holds only this, and refuses at or below it). */
  height: number;
  slot: number;
  /** Never signs at or below this height (default: `height`). */
  floor?: number;
  /** The heights signed above `floor`, ascending. */
  signed?: number[];
  vote?: SignedVote;
}

/** Heights remembered one by one: 64 of this validator's blocks span ~64 rounds of the set, far past any branch. */
export const SIGNED_HEIGHTS_KEPT = 64;

/**
 * What a damaged guard file says: removing it is safe only where no other node holds the key, and a
 * node started without it signs again from its chain's head, which a block it signed may be above.
 */
const damaged = (file: string) =>
  `${file} is damaged: remove it only if this validator key signs nowhere else and no block it signed can be ` +
  'above the chain this node holds, or restore it from a backup (it records the heights and slots this validator ' +
  'signed, so that it never signs two blocks at one height)';

/** The file's JSON object, or an empty one where it is empty, not JSON or not an object (then every check fails). */
function parseObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export class SigningGuard {
  private constructor(
    private readonly file: string | null,
    private last: LastSigned,
  ) {}

  /** A guard kept in memory only (the simulator: its "disk" survives a simulated crash with the node's store). */
  static inMemory(last: LastSigned = { height: 0, slot: -1 }): SigningGuard {
    return new SigningGuard(null, last);
  }

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
      const v = parseObject(text) as Partial<LastSigned>;
      const vote = v.vote;
      if (
        !Number.isSafeInteger(v.height) ||
        !Number.isSafeInteger(v.slot) ||
        (v.floor !== undefined && !Number.isSafeInteger(v.floor)) ||
        (v.signed !== undefined && !(Array.isArray(v.signed) && v.signed.every((h) => Number.isSafeInteger(h)))) ||
        (vote !== undefined &&
          !(
            Number.isSafeInteger(vote?.target?.epoch) &&
            typeof vote.target.hash === 'string' &&
            Number.isSafeInteger(vote.source)
          ))
      )
        throw new CairnError('STORAGE_OPEN', damaged(file), { dir: file });
      last = {
        height: v.height!,
        slot: v.slot!,
        ...(v.floor !== undefined && { floor: v.floor }),
        ...(v.signed && { signed: v.signed }),
        ...(vote && { vote }),
      };
    }
    return new SigningGuard(file, last);
  }

  get lastSigned(): Readonly<LastSigned> {
    return this.last;
  }

  /** At or below this height nothing is signed (a file from before `floor` has only its `height`). */
  private get floor(): number {
    return this.last.floor ?? this.last.height;
  }

  /** Why this validator must not sign a block at `height` in `slot`, or undefined. */
  refusal(height: number, slot: number): string | undefined {
    if (height <= this.floor) return `already signed a block at height ${this.floor}`;
    if (this.last.signed?.includes(height)) return `already signed a block at height ${height}`;
    if (slot <= this.last.slot) return `already signed in slot ${this.last.slot}`;
    return undefined;
  }

  /** Why this validator must not cast `vote` (a block that would break finality's rules), or undefined. */
  voteRefusal(vote: NextVote): string | undefined {
    return voteRefusal(this.last.vote, vote);
  }

  /**
   * A --dev node reverted its own chain to the block at `height` in `slot` (POST /dev/revert):
   * it may sign after it again. Never used on a network: a second header at a height is
   * slashable there.
   */
  async forgetAbove(height: number, slot: number): Promise<void> {
    // Its votes go too: the chain it votes on again is the reverted one, numbered from there.
    if (height >= this.last.height) return;
    const floor = Math.min(this.floor, height);
    const signed = (this.last.signed ?? []).filter((h) => h <= height);
    await this.write({ height, slot: Math.min(slot, this.last.slot), floor, signed });
  }

  /** Records the signature (and its vote) durably; throws (nothing signed leaves) when it cannot. */
  async record(height: number, slot: number, vote?: SignedVote): Promise<void> {
    const v = vote ? signedVote(this.last.vote, vote, vote.target.hash) : this.last.vote;
    let { floor } = this;
    const signed = [...(this.last.signed ?? []), height].sort((a, b) => a - b);
    while (signed.length > SIGNED_HEIGHTS_KEPT) floor = signed.shift()!;
    await this.write({ height: Math.max(height, this.last.height), slot, floor, signed, ...(v && { vote: v }) });
  }

  private async write(next: LastSigned): Promise<void> {
    if (this.file === null) {
      this.last = next;
      return;
    }
    const tmp = `${this.file}.tmp`;
    try {
      const fh = await open(tmp, 'w', 0o600);
      try {
        await fh.writeFile(`${JSON.stringify(next)}\n`);
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
    this.last = next;
  }
}
