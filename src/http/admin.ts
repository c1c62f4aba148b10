import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The `x-admin-token` check of the admin endpoints (GET /peers, GET /security/alerts).
 * Both sides are hashed to SHA-256 first, so `timingSafeEqual` always compares two
 * 32-byte digests: the comparison takes the same time whatever the guess, and the token's
 * length does not leak either.
 */

export const ADMIN_HEADER = 'x-admin-token';
export const ADMIN_DISABLED = 'admin endpoints are disabled: no admin token configured';

export type AdminVerdict = { ok: true } | { ok: false; status: 401 | 403; error: string; wrongToken: boolean };

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export class AdminAuth {
  private readonly expected: Buffer | null;

  constructor(token: string | null | undefined) {
    this.expected = token ? digest(token) : null;
  }

  get enabled(): boolean {
    return this.expected !== null;
  }

  check(header: string | string[] | undefined): AdminVerdict {
    if (!this.expected) return { ok: false, status: 403, error: ADMIN_DISABLED, wrongToken: false };
    const given = Array.isArray(header) ? header[0] : header;
    if (given === undefined || given === '')
      return { ok: false, status: 401, error: `missing ${ADMIN_HEADER} header`, wrongToken: false };
    if (!timingSafeEqual(digest(given), this.expected))
      return { ok: false, status: 403, error: `invalid ${ADMIN_HEADER}`, wrongToken: true };
    return { ok: true };
  }

  /** Whether the header carries the right token (for views that show more to the operator). */
  isAdmin(header: string | string[] | undefined): boolean {
    return this.check(header).ok;
  }
}
