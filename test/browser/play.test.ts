import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { Driver } from '../../server/host/host.js';
import { startTestServer, type TestServer } from '../server/helpers.js';
import { CHROMIUM, launch, overflowX, shot, watch } from './browser.js';

describe.skipIf(!CHROMIUM)('browser client in Chromium: free play', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer({ crowd: false }), launch()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const width of [360, 1280]) {
    it(`lets a guest play at ${width} px: no 404, things split by holder, model characters marked, keyboard only`, async () => {
      // The orc is driven by a program that calls itself a model.
      const orc: Driver = { kind: 'model', wantsState: false, perceive() {}, detached() {} };
      server.host.attach('orc', orc);
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      const w = watch(page);
      try {
        await page.goto(`http://127.0.0.1:${server.httpPort}/`);
        await page.getByRole('button', { name: 'Play as a guest' }).click();
        await page.getByRole('button', { name: /^kitty/ }).click();
        await page.getByRole('heading', { name: 'Walled Garden' }).waitFor();
        // People: the orc is marked as a model character.
        await page.locator('#people button', { hasText: 'orc' }).locator('.badge', { hasText: 'model' }).waitFor();
        // Things: in the room, apart from what others carry (the gardener's apple, the orc's helmet).
        await page.locator('#objects button', { hasText: 'shovel' }).waitFor();
        expect(await page.locator('#objects').textContent()).not.toContain('apple');
        expect(await page.locator('#others').textContent()).toContain('apple (gardener)');
        expect(await page.locator('#others').textContent()).toContain('iron helmet (orc, worn)');
        // Keyboard only: the command box has a label and takes Enter.
        const input = page.getByLabel('Command');
        await input.focus();
        await page.keyboard.type('get shovel');
        await page.keyboard.press('Enter');
        await page.locator('#log .result', { hasText: 'You get the shovel.' }).waitFor();
        await page.locator('#inventory button', { hasText: 'shovel' }).waitFor();
        // The action buttons work from the keyboard too.
        await page.locator('#actions button', { hasText: 'drop shovel' }).focus();
        await page.keyboard.press('Enter');
        await page.locator('#log .result', { hasText: 'You drop the shovel.' }).waitFor();
        expect(await overflowX(page)).toBeLessThanOrEqual(0);
        await shot(page, `free-play-${width}`);
        const icon = await page.request.get(`http://127.0.0.1:${server.httpPort}/favicon.ico`);
        expect(icon.status()).toBe(200);
        expect(w.bad).toEqual([]);
        await input.fill('quit');
        await page.keyboard.press('Enter');
        await page.getByRole('button', { name: 'Play as a guest' }).waitFor();
      } finally {
        server.host.detach('orc', orc);
        await page.close();
      }
    });
  }
});
