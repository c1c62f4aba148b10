import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveKeys, type HybridKeys } from '../../src/crypto/keys';
import { COIN } from '../../src/primitives/amount';
import { fromHex } from '../../src/primitives/hex';
import { CairnClient, type TxInput } from '../../src/sdk';
import { startTestNode, type TestNode } from '../helpers/testNode';

/**
 * The explorer the node serves at GET /, in a real browser: Debian's Chromium driven by
 * playwright-core (scripts/install-browser.sh installs it; `npm test` runs that first).
 * Without Chromium the suite skips, unless CAIRN_REQUIRE_BROWSER=1 (npm run test:browser, CI) makes that a failure.
 * Screenshots of every page go to test-artifacts/explorer/.
 */
/** What the browser-side checks use of a canvas (the test is compiled without DOM types). */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts/explorer');

if (!haveBrowser && process.env.CAIRN_REQUIRE_BROWSER === '1') {
  throw new Error(
    `CAIRN_REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: run "npm run install:browser" as root ` +
      `(Debian's chromium package), or set CHROMIUM_PATH`,
  );
}

describe.skipIf(!haveBrowser)('explorer in Chromium', () => {
  let t: TestNode;
  let browser: Browser;
  let page: Page;
  let txId: string;
  let tokenId: string;
  /** A proposal, an AI task and a bridge transfer: the machines' pages. */
  let proposalId: string;
  let taskId: string;
  let transferId: string;
  let from: HybridKeys;
  /** Every request the page made that did not go to the node: the explorer must work offline. */
  const outside: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    t = await startTestNode({ devAccounts: 3 });
    const accounts = (
      JSON.parse(await readFile(join(t.dataDir, 'dev-accounts.json'), 'utf8')) as { secret: string }[]
    ).map((a) => deriveKeys(fromHex(a.secret)));
    from = accounts[0];
    const client = new CairnClient(t.url);
    const sent = await client.sendTx(
      from,
      { type: 'TRANSFER', to: accounts[1].address, amount: 2_500_000n },
      { wait: 'included', timeoutMs: 20_000, pollMs: 50 },
    );
    txId = sent.tx.id;
    const token = await client.sendAsset(
      from,
      { type: 'TOKEN_CREATE', name: 'Explorer Test', symbol: 'EXPL', supply: 1_000_000n, decimals: 2 },
      { wait: 'included', timeoutMs: 20_000, pollMs: 50 },
    );
    tokenId = token.assetId!;
    const opts = { wait: 'included', timeoutMs: 20_000, pollMs: 50 } as const;
    proposalId = (
      await client.sendTx(
        from,
        { type: 'GOV_PROPOSE', param: 'BANK_SIZE', value: '7', deposit: 100n * COIN } as TxInput,
        opts,
      )
    ).tx.id;
    taskId = (
      await client.sendTx(from, { type: 'AI_TASK', reward: 3n * COIN, prompt: 'what is 2 + 3', quorum: 3 }, opts)
    ).tx.id;
    transferId = (
      await client.sendTx(
        from,
        {
          type: 'BRIDGE_OUT',
          chain: 'ethereum',
          recipient: '0xabc0000000000000000000000000000000000001',
          amount: 5n * COIN,
        } as TxInput,
        opts,
      )
    ).tx.id;
    await mkdir(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // Root in CI needs --no-sandbox; the rest keeps Chromium from calling out of a closed network.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('request', (r) => {
      if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      // A not-found page is built from the node's 404, which the browser reports as a failed load.
      if (m.type() === 'error' && !m.text().includes('status of 404')) errors.push(m.text());
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await t?.cleanup();
  });

  /** Waits until the page of `hash` is on screen (main.ts sets data-hash once it rendered). */
  const shown = (hash: string) =>
    page.waitForSelector(`#page[data-ready="true"][data-hash=${JSON.stringify(hash)}]`, { timeout: 15_000 });

  /** Opens an explorer route and waits until its page rendered from the node's answers. */
  async function open(route: string, shot: string): Promise<void> {
    await page.goto(`${t.url}/${route}`);
    await shown(route);
    await page.screenshot({ path: join(ARTIFACTS, `${shot}.png`), fullPage: true });
  }

  it('loads: head, finality and the latest blocks and transactions, and the charts render', async () => {
    await open('', 'home');
    await page.waitForSelector('#head-height');
    const height = Number(await page.textContent('#head-height'));
    expect(height).toBeGreaterThanOrEqual(1);
    expect(await page.textContent('main h1')).toBe('Overview');
    expect(await page.textContent('main')).toContain('Latest blocks');
    // The transfer is among the latest transactions, linked to its page.
    expect(await page.locator(`a[href="#/tx/${txId}"]`).count()).toBeGreaterThan(0);
    // uPlot draws each series on a canvas: three charts, each with a drawn canvas of real size.
    const canvases = await page.$$eval('.chart .uplot canvas', (cs) =>
      cs.map((c) => ({ w: (c as unknown as Canvas).width, h: (c as unknown as Canvas).height })),
    );
    expect(canvases.length).toBe(3);
    for (const c of canvases) expect(c.w * c.h).toBeGreaterThan(0);
    // The transactions-per-block chart has ink: some pixel of its canvas is not blank.
    const inked = await page.$eval('#chart-blocks canvas', (c) => {
      const cv = c as unknown as Canvas;
      const data = cv.getContext('2d')!.getImageData(0, 0, cv.width, cv.height).data;
      for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) return true;
      return false;
    });
    expect(inked).toBe(true);
  });

  it('search finds a transaction and shows its lifecycle', async () => {
    await open('', 'before-search');
    await page.fill('#q', txId);
    await page.click('#search button');
    await shown(`#/tx/${txId}`);
    const text = (await page.textContent('main'))!;
    expect(text).toContain(txId);
    expect(text).toContain('TRANSFER');
    expect(text).toContain('2.5 coins');
    // The lifecycle bar marks where it is: included or already finalized.
    expect(['included', 'finalized']).toContain(await page.textContent('.lifecycle .step.now'));
    await page.screenshot({ path: join(ARTIFACTS, 'search-tx.png'), fullPage: true });
    // A search with a prefix of the token's symbol finds it too (one hit: straight to its page).
    await page.fill('#q', 'EXP');
    await page.click('#search button');
    await shown(`#/token/${tokenId}`);
    expect(await page.textContent('main h1')).toBe('Explorer Test (EXPL)');
  });

  it('every kind of page renders from the node, and nothing is fetched from outside', async () => {
    const pages: [string, string, string][] = [
      [`#/address/${from.address}`, 'account', 'Balance'],
      ['#/block/1', 'block', 'Block 1'],
      [`#/token/${tokenId}`, 'token', 'Holders'],
      ['#/validators', 'validators', 'Productivity'],
      ['#/proposals', 'proposals', 'Governance proposals'],
      ['#/tasks', 'tasks', 'Oracles'],
      ['#/bridge', 'bridge', 'Pools and circuit breaker'],
      ['#/tokens', 'tokens', 'EXPL'],
      ['#/nfts', 'nfts', 'NFT collections'],
      ['#/names', 'names', 'Names'],
      [`#/proposal/${proposalId}`, 'proposal', 'VOTING'],
      [`#/task/${taskId}`, 'ai-task', 'State timeline'],
      [`#/bridge/${transferId}`, 'bridge-transfer', 'LOCKED'],
      ['#/tx/0x' + '00'.repeat(32), 'tx-not-found', 'Transaction not found'],
    ];
    for (const [route, shot, expected] of pages) {
      await open(route, shot);
      expect(await page.textContent('main'), route).toContain(expected);
      // The proposal's tally over time is a chart.
      if (shot === 'proposal') expect(await page.locator('#chart-tally .uplot canvas').count()).toBe(1);
    }
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('GET / still answers the JSON index to a program', async () => {
    const r = await fetch(`${t.url}/`, { headers: { accept: 'application/json' } });
    const body = (await r.json()) as { endpoints: { path: string }[] };
    expect(body.endpoints.map((e) => e.path)).toContain('GET /status');
  });
});
