/**
 * Real Chromium for the browser tests, through playwright-core (no browser download: the system's
 * chromium). `findChromium()` is null when there is none; the tests then skip, saying so.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** $LIGHTMUD_CHROMIUM when set (only it), else the first system browser found. */
export function findChromium(): string | null {
  const env = process.env.LIGHTMUD_CHROMIUM;
  if (env) return existsSync(env) ? env : null;
  for (const c of CANDIDATES) if (existsSync(c)) return c;
  return null;
}

export const CHROMIUM = findChromium();
if (!CHROMIUM) console.warn(`browser tests skipped: no chromium binary found (${process.env.LIGHTMUD_CHROMIUM ? `LIGHTMUD_CHROMIUM=${process.env.LIGHTMUD_CHROMIUM} does not exist` : `looked for ${CANDIDATES.join(', ')}`}; install Debian's chromium, or set LIGHTMUD_CHROMIUM=/path/to/chrome)`);

/** Screenshots go here (gitignored). */
export const ARTEFACTS = join(process.cwd(), '.artefacts', 'browser');

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTEFACTS, { recursive: true });
  const file = join(ARTEFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** Record every response of 400 or more, and page errors: a page should have none. */
export function watch(page: Page): { bad: string[] } {
  const bad: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) bad.push(`${r.status()} ${r.url()}`);
  });
  page.on('pageerror', (e) => bad.push(`error ${e.message}`));
  return { bad };
}

/** The page is no wider than its viewport (nothing to scroll sideways). */
export async function overflowX(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}
