import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devValidatorSecret } from '../../src/chain/devnet';
import { deriveKeys } from '../../src/crypto/keys';
import { HONEST, requestFrom, spawnTarget, waitFor, type Target } from './lib';

/**
 * Row 9 of issue 23: a chain started with `--genesis` whose validators include the published
 * development key (anyone can derive it from the public seed, so anyone could sign its blocks)
 * must not start by accident. The operator who copies the development validator into a
 * specification gets a refusal naming --allow-dev-validator; with the flag (a local test
 * network) it starts and produces.
 */
const execFileP = promisify(execFile);
const cli = async (args: string[]): Promise<string> =>
  (await execFileP(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args])).stdout;
const DEV_VALIDATOR = deriveKeys(devValidatorSecret());

let dir: string;
let node: Target | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-devkey-'));
  const spec = JSON.parse(await cli(['genesis', 'template', '--dev-accounts', '1']));
  // The template names no validator; an operator adds the development one (its secret is published).
  if (!spec.accounts.some((a: { address: string }) => a.address === DEV_VALIDATOR.address)) {
    spec.accounts.push(
      JSON.parse(await cli(['genesis', 'validator', '--secret', Buffer.from(devValidatorSecret()).toString('hex')])),
    );
  }
  await writeFile(join(dir, 'genesis.json'), JSON.stringify(spec));
}, 60_000);
afterAll(async () => {
  await node?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('a --genesis chain on the published development validator key', () => {
  it('refuses to start without --allow-dev-validator, naming the flag and the validator', async () => {
    // A node that starts anyway is stopped at once (the test then fails on its outcome).
    const outcome = await spawnTarget(['--genesis', join(dir, 'genesis.json')], { dev: false }).then(
      async (t) => (await t.cleanup(), 'started'),
      (e: Error) => e.message,
    );
    expect(outcome).toMatch(/node exited early \(2\)/);
    expect(outcome).toMatch(
      new RegExp(`validator ${DEV_VALIDATOR.address} signs with a published development key.*--allow-dev-validator`),
    );
  }, 60_000);

  it('starts and produces with --allow-dev-validator', async () => {
    node = await spawnTarget(
      ['--genesis', join(dir, 'genesis.json'), '--allow-dev-validator', '--slot-ms', '200', '--idle-block-ms', '300'],
      { dev: false },
    );
    const s = await waitFor('two blocks', async () => {
      const r = (await requestFrom(HONEST, `${node!.url}/status`)).json;
      return r.height >= 2 ? r : undefined;
    });
    expect(s.validators.map((v: { address: string }) => v.address)).toEqual([DEV_VALIDATOR.address]);
  }, 60_000);
});
