import { afterAll } from 'vitest';
import { killOwned } from './processes';

/**
 * Runs before every test file (vitest `setupFiles`). Its after-all hook runs after the
 * file's own (hooks run as a stack): whatever process the file's tests started and did not
 * stop is killed, passed or failed.
 */
afterAll(killOwned);
