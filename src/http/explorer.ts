import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

/**
 * The block explorer's files (src/explorer), bundled with esbuild in memory the first time
 * they are asked for (~0.3 s): a fresh clone serves it with no build step to remember, and
 * nothing is fetched from outside (uPlot is bundled from node_modules).
 */
export interface ExplorerAssets {
  html: string;
  js: string;
  css: string;
}

const DIR = fileURLToPath(new URL('../explorer/', import.meta.url));

async function build(): Promise<ExplorerAssets> {
  const { build: esbuild } = await import('esbuild');
  const out = await esbuild({
    entryPoints: [`${DIR}main.ts`],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2020',
    minify: true,
    outdir: '/explorer',
    logLevel: 'silent',
  });
  const file = (ext: string) => out.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { html: await readFile(`${DIR}index.html`, 'utf8'), js: file('.js'), css: file('.css') };
}

/** Builds once; a failed build is logged and retried on the next request. */
export function explorerAssets(log: Logger): () => Promise<ExplorerAssets> {
  let pending: Promise<ExplorerAssets> | null = null;
  return () => {
    pending ??= build().catch((e: unknown) => {
      pending = null;
      log.error({ err: e }, 'the explorer could not be built (src/explorer)');
      throw e;
    });
    return pending;
  };
}
