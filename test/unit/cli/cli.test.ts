import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from '../../../src/chain/envelope';
import { TX_TYPES } from '../../../src/modules/registry';
import { parseAddress, toNative } from '../../../src/crypto/address';
import { deriveKeys } from '../../../src/crypto/keys';
import { fromHex } from '../../../src/primitives/hex';
import { useStubNode } from '../../helpers/stubNode';
import { runCliCaptured } from '../../helpers/cliRun';
import { DEV_NETWORK } from '../../../src/chain/devnet';

const SECRET = '11'.repeat(32);
const TO = '0x000000000000000000000000000000000000beef';

const run = runCliCaptured;

describe('offline commands', () => {
  it('keygen prints a fresh secret with its keys and both address forms', async () => {
    const { code, out } = await run(['keygen']);
    expect(code).toBe(0);
    const k = JSON.parse(out);
    expect(Object.keys(k).sort()).toEqual(['address', 'native', 'secp256k1PrivateKey', 'secret']);
    expect(k.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(k.secp256k1PrivateKey).toMatch(/^0x[0-9a-f]{64}$/);
    const keys = deriveKeys(fromHex(k.secret));
    expect(k.address).toBe(keys.address);
    expect(k.native).toBe(toNative(keys.address));
    expect(parseAddress(k.native)).toBe(k.address);
  });

  it('address --secret gives the address deriveKeys gives, also from $CAIRN_SECRET', async () => {
    const expected = deriveKeys(fromHex(SECRET)).address;
    const a = await run(['address', '--secret', SECRET]);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.out)).toEqual({ address: expected, native: toNative(expected) });
    const b = await run(['address'], { CAIRN_SECRET: `0x${SECRET}` });
    expect(JSON.parse(b.out).address).toBe(expected);
    const c = await run(['address', '--secret', 'abc']);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--secret must be 32 bytes/);
    const d = await run(['address']);
    expect(d.code).toBe(2);
    expect(d.err).toMatch(/CAIRN_SECRET/);
  });

  it('tx sign prints an envelope that decodes with the same id', async () => {
    const data = { memo: 'hi', n: 3 };
    const { code, out } = await run([
      'tx',
      'sign',
      '--secret',
      SECRET,
      '--type',
      'TRANSFER',
      '--to',
      toNative(TO),
      '--amount',
      '1500000',
      '--nonce',
      '7',
      '--fee',
      '20',
      '--timestamp',
      '1700000000000',
      '--data',
      JSON.stringify(data),
      '--genesis-hash',
      DEV_NETWORK.genesisHash,
    ]);
    expect(code).toBe(0);
    const body = JSON.parse(out);
    const decoded = decodeEnvelope(body, DEV_NETWORK);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.tx.id).toBe(body.id);
    expect(decoded.tx).toMatchObject({
      type: 'TRANSFER',
      from: deriveKeys(fromHex(SECRET)).address,
      to: TO,
      amount: '1500000',
      nonce: 7,
      fee: '20',
      timestamp: 1700000000000,
      data,
    });
  });

  it('tx sign refuses to guess a nonce offline', async () => {
    const r = await run(['tx', 'sign', '--secret', SECRET, '--type', 'TRANSFER', '--to', TO]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--nonce is required/);
    expect(r.out).toBe('');
  });

  it('an unknown --type lists every valid type', async () => {
    const r = await run(['tx', 'sign', '--secret', SECRET, '--type', 'TELEPORT', '--nonce', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown --type "TELEPORT"/);
    for (const t of TX_TYPES) expect(r.err).toContain(t);
  });

  it('bad --data JSON, bad amounts and bad addresses are usage errors', async () => {
    const base = ['tx', 'sign', '--secret', SECRET, '--type', 'TRANSFER', '--nonce', '0'];
    const a = await run([...base, '--data', '{oops']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/--data is not valid JSON/);
    const b = await run([...base, '--amount', '1.5']);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--amount must be a non-negative integer in base units/);
    const c = await run([...base, '--to', 'cairn1nothing']);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--to is not a valid address/);
    const d = await run([...base, '--nonce', '-1']);
    expect(d.code).toBe(2);
  });

  it('help texts explain commands; unknown commands and flags exit 2', async () => {
    const main = await run(['--help']);
    expect(main.code).toBe(0);
    for (const cmd of ['keygen', 'address', 'tx sign', 'tx send', 'tx wait', 'status', 'account', 'node'])
      expect(main.out).toContain(cmd);
    expect(main.out).toMatch(/never a failure/);
    const wait = await run(['tx', 'wait', '--help']);
    expect(wait.code).toBe(0);
    expect(wait.out).toMatch(/unknown\s+3/);
    expect(wait.out).toMatch(/NOT a failure/);
    const sign = await run(['tx', 'sign', '--help']);
    for (const t of TX_TYPES) expect(sign.out).toContain(t);
    const node = await run(['node', '--help']);
    expect(node.code).toBe(0);
    expect(node.out).toContain('$MEMPOOL_CAP');
    expect((await run([])).code).toBe(2);
    const bogus = await run(['bogus']);
    expect(bogus.code).toBe(2);
    expect(bogus.err).toMatch(/unknown command "bogus"/);
    const flag = await run(['keygen', '--nope']);
    expect(flag.code).toBe(2);
    expect(flag.err).toMatch(/--nope/);
    expect((await run(['tx', 'frobnicate'])).code).toBe(2);
    const cfg = await run(['node', '--mempool-cap', '50001']);
    expect(cfg.code).toBe(2);
    expect(cfg.err).toMatch(/--mempool-cap/);
  });
});

describe('commands that talk to a node (local node:http server)', () => {
  const stub = useStubNode();

  const ID = `0x${'ab'.repeat(32)}`;

  it('tx wait: 404 then pending until the timeout gives outcome unknown (exit 3), never failed', async () => {
    let calls = 0;
    stub.handler = (req) => {
      if (req.url !== `/tx/${ID}`) return { status: 500, body: { error: 'unexpected' } };
      calls++;
      return calls === 1
        ? { status: 404, body: { error: 'transaction not found' } }
        : { status: 200, body: { id: ID, status: 'pending' } };
    };
    const started = Date.now();
    const r = await run(['tx', 'wait', ID, '--timeout', '1500', '--poll', '50', '--node', stub.url]);
    expect(Date.now() - started).toBeLessThan(8000);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.out);
    expect(out).toMatchObject({ id: ID, outcome: 'unknown', lastStatus: 'pending' });
    expect(out.blockHeight).toBeUndefined();
    expect(calls).toBeGreaterThanOrEqual(2); // kept polling after the 404
  });

  it('tx wait: included, failed, and finalized through /status finalizedHeight', async () => {
    stub.handler = () => ({
      status: 200,
      body: {
        id: ID,
        status: 'included',
        blockHeight: 5,
        blockHash: '0x' + '05'.repeat(32),
        result: { status: 'success' },
      },
    });
    const inc = await run(['tx', 'wait', ID, '--node', stub.url]);
    expect(inc.code).toBe(0);
    expect(JSON.parse(inc.out)).toEqual({
      id: ID,
      outcome: 'included',
      blockHeight: 5,
      blockHash: '0x' + '05'.repeat(32),
    });

    stub.handler = () => ({
      status: 200,
      body: {
        id: ID,
        status: 'included',
        blockHeight: 6,
        blockHash: '0x06',
        result: { status: 'failed', error: 'insufficient balance' },
      },
    });
    const failed = await run(['tx', 'wait', ID, '--node', stub.url]);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.out)).toMatchObject({ outcome: 'failed', reason: 'insufficient balance' });

    let finalizedHeight = 4;
    stub.handler = (req) =>
      req.url === '/status'
        ? { status: 200, body: { height: 9, finalizedHeight: finalizedHeight++ } }
        : { status: 200, body: { id: ID, status: 'included', blockHeight: 6, blockHash: '0x06' } };
    const fin = await run([
      'tx',
      'wait',
      ID,
      '--until',
      'finalized',
      '--poll',
      '10',
      '--timeout',
      '5000',
      '--node',
      stub.url,
    ]);
    expect(fin.code).toBe(0);
    expect(JSON.parse(fin.out)).toMatchObject({ outcome: 'finalized', blockHeight: 6 });

    stub.handler = () => ({ status: 200, body: { id: ID, status: 'dropped' } });
    expect((await run(['tx', 'wait', ID, '--node', stub.url])).code).toBe(1);
  });

  it('tx send fetches nextNonce, posts the envelope, and maps the verdict to the exit code', async () => {
    const from = deriveKeys(fromHex(SECRET)).address;
    let posted: Record<string, unknown> | undefined;
    stub.handler = (req, body) => {
      if (req.method === 'GET' && req.url === `/address/${from}`)
        return { status: 200, body: { address: from, nextNonce: 12 } };
      if (req.method === 'POST' && req.url === '/tx') {
        posted = JSON.parse(body);
        return { status: 200, body: { accepted: true, id: posted!.id } };
      }
      return { status: 404, body: { error: 'not found' } };
    };
    const ok = await run(['tx', 'send', '--type', 'TRANSFER', '--to', TO, '--amount', '1', '--node', stub.url], {
      CAIRN_SECRET: SECRET,
    });
    expect(ok.code).toBe(0);
    expect(posted?.nonce).toBe(12);
    expect(decodeEnvelope(posted, DEV_NETWORK).ok).toBe(true);
    expect(JSON.parse(ok.out)).toEqual({ accepted: true, id: posted!.id });

    stub.handler = (req) =>
      req.method === 'POST'
        ? { status: 400, body: { error: 'nonce already used' } }
        : { status: 404, body: { error: 'not found' } };
    const refused = await run(['tx', 'send', '--type', 'TRANSFER', '--to', TO, '--node', stub.url], {
      CAIRN_SECRET: SECRET,
    });
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.out)).toMatchObject({ accepted: false, reason: 'nonce already used' });
    expect(stub.seen).toContain(`GET /address/${from}`); // 404 account → nonce 0, still sent
  });

  it('account prints a zero account on 404 and HTTP errors exit 1 with the message', async () => {
    stub.handler = () => ({ status: 404, body: { error: 'account not found' } });
    const r = await run(['account', toNative(TO), '--node', stub.url]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ exists: false, address: TO, balance: '0', nonce: 0, nextNonce: 0 });

    stub.handler = () => ({ status: 503, body: { error: 'node is syncing' } });
    const s = await run(['status', '--node', stub.url]);
    expect(s.code).toBe(1);
    expect(s.err).toMatch(/node is syncing \(503\)/);
  });
});
