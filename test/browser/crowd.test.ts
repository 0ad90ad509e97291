import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startCrowdServer } from '../crowd/helpers.js';
import { makeAdmin, type TestServer } from '../server/helpers.js';
import type { CrowdTask } from '../../server/crowd/task.js';
import { CHROMIUM, launch, overflowX, shot, watch } from './browser.js';

/** Play one turn in the page: type a line, optionally pick an action or emote button, send. */
async function turn(page: Page, say: string, act?: string): Promise<void> {
  await page.locator('#say:not([disabled])').waitFor();
  await page.getByLabel('Say one line as your character').fill(say);
  if (act) await page.locator(`#actions button[data-act="${act}"], #emotes button[data-act="${act}"]`).first().click();
  await page.getByRole('button', { name: 'Send turn' }).click();
}

async function finishForm(page: Page, rating: number, report?: string): Promise<string> {
  await page.locator('#end-form').waitFor();
  await page.getByLabel(String(rating), { exact: true }).check();
  if (report) await page.getByLabel('Report a problem with your partner (optional)').fill(report);
  await page.getByRole('button', { name: 'Submit and get my code' }).click();
  await page.locator('#code').waitFor();
  return (await page.locator('#code').textContent()) ?? '';
}

describe.skipIf(!CHROMIUM)('crowd task pages in Chromium', () => {
  let server: TestServer & { task: CrowdTask };
  let browser: Browser;
  let base = '';
  beforeAll(async () => {
    [server, browser] = await Promise.all([startCrowdServer({ modelFallbackSeconds: null }), launch()]);
    base = `http://127.0.0.1:${server.httpPort}`;
    // A second task whose workers get a model partner after half a second.
    server.crowd!.store.createTask({
      ...server.task, id: 'solo-chat', title: 'Chat with a character', modelFallbackSeconds: 0.5, locations: ['shed'],
      onboarding: { text: 'You will play a character in a small world.', question: 'What do you do each turn?', choices: ['Write an essay', 'Say one line, and maybe one action or emote'], answer: 1 },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('pairs two workers who play a 4-turn episode with lines, an action and an emote, a refused line kept in the box, then the end form and a code', async () => {
    const a = await browser.newPage({ viewport: { width: 360, height: 740 } });
    const b = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const wa = watch(a);
    const wb = watch(b);
    try {
      await a.goto(`${base}/crowd/garden-chat?worker=BROWSER-A`);
      await a.getByRole('heading', { name: 'Waiting for a partner' }).waitFor();
      await b.goto(`${base}/crowd/garden-chat?worker=BROWSER-B`);
      for (const p of [a, b]) await p.locator('#you-persona:not(:empty)').waitFor();
      expect(await a.locator('#emotes button').count()).toBe(22);
      // a went first. A short line is refused and stays in the box.
      await a.locator('#say:not([disabled])').waitFor();
      await a.getByLabel('Say one line as your character').fill('hi');
      await a.getByRole('button', { name: 'Send turn' }).click();
      await a.locator('#problems', { hasText: 'at least 3 words' }).waitFor();
      expect(await a.getByLabel('Say one line as your character').inputValue()).toBe('hi');
      const action = (await a.locator('#actions button').first().getAttribute('data-act'))!;
      await turn(a, 'Hello, lovely day for it, is it not?', action);
      await b.locator('#log .partner', { hasText: 'Hello, lovely day' }).waitFor();
      await turn(b, 'It is indeed, my friend.', 'smile');
      await a.locator('#log .partner', { hasText: 'smiles' }).waitFor();
      // Reloading the page keeps the seat and shows the conversation so far.
      await a.reload();
      await a.locator('#log .you', { hasText: 'You: "Hello, lovely day for it, is it not?"' }).waitFor();
      await a.locator('#log .partner', { hasText: '"It is indeed, my friend." (smile)' }).waitFor();
      await turn(a, 'What brings you here today?');
      await turn(b, 'Only the fine weather and you.');
      await shot(a, 'crowd-pair-360');
      const codeA = await finishForm(a, 5);
      const codeB = await finishForm(b, 4, 'They were lovely');
      expect(codeA).toMatch(/^[A-Z0-9]{10}$/);
      expect(codeB).toMatch(/^[A-Z0-9]{10}$/);
      await shot(b, 'crowd-pair-1280');
      expect(await overflowX(a)).toBeLessThanOrEqual(0);
      const turns = server.crowd!.store.turns(server.crowd!.store.episodes('garden-chat')[0]!.id);
      expect(turns.map((t) => [t.say, t.action ?? t.emote ?? null])).toEqual([
        ['Hello, lovely day for it, is it not?', action], ['It is indeed, my friend.', 'smile'], ['What brings you here today?', null], ['Only the fine weather and you.', null],
      ]);
      expect([...wa.bad, ...wb.bad]).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('asks the onboarding question, then gives a worker who waits past the fallback a marked program partner', async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
    try {
      await page.goto(`${base}/crowd/solo-chat?worker=BROWSER-SOLO`);
      await page.getByRole('heading', { name: 'Before you start' }).waitFor();
      await page.getByRole('button', { name: 'Answer and start' }).click();
      await page.locator('#onboarding-problems', { hasText: 'Please choose an answer' }).waitFor();
      await page.getByLabel('Say one line, and maybe one action or emote').check();
      await page.getByRole('button', { name: 'Answer and start' }).click();
      await page.locator('#partner-name .badge', { hasText: 'script' }).waitFor();
      await turn(page, 'Good evening, who might you be?');
      await page.locator('#log .partner .badge', { hasText: 'model' }).first().waitFor();
      await page.locator('#log .partner', { hasText: 'Hello there, who are you?' }).waitFor();
      await shot(page, 'crowd-fallback-360');
      // A turn with the keyboard only: an emote button, then the line and Enter.
      await page.locator('#say:not([disabled])').waitFor();
      await page.locator('#emotes button[data-act="nod"]').focus();
      await page.keyboard.press('Enter');
      expect(await page.locator('#emotes button[data-act="nod"]').getAttribute('aria-pressed')).toBe('true');
      await page.keyboard.type('I am just a traveller passing by.');
      await page.keyboard.press('Enter');
      await page.locator('#log .you', { hasText: 'You nod.' }).waitFor();
      await finishForm(page, 3);
    } finally {
      await page.close();
    }
  });

  it('lets an admin log in, see ratings, reports and checks, approve units and export them', async () => {
    await makeAdmin(server, 'boss', 'secret-1');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const w = watch(page);
    try {
      await page.goto(`${base}/crowd-admin`);
      await page.getByLabel('Account name').fill('boss');
      await page.getByLabel('Password').fill('secret-1');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.locator('#tasks tr', { hasText: 'garden-chat' }).getByRole('button', { name: 'Review' }).click();
      const episode = page.locator('article[data-episode]').first();
      await episode.waitFor();
      expect(await episode.textContent()).toContain('report: "They were lovely"');
      expect(await episode.textContent()).toContain('Please write at least 3 words');
      for (let i = 0; i < 2; i++) {
        await page.locator('article[data-episode] .review').nth(i).getByRole('button', { name: 'Approve' }).click();
        await page.locator('article[data-episode] .unit').nth(i).getByText(': approved;').waitFor();
      }
      await shot(page, 'crowd-admin-1280');
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export approved: jsonl' }).click();
      const file = await (await download).path();
      const eps = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(eps).toHaveLength(1);
      expect(eps[0]).toMatchObject({ source: 'crowd', provenance: [{ kind: 'human' }, { kind: 'human' }, { kind: 'human' }, { kind: 'human' }] });
      const dialogue = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export approved: dialogue' }).click();
      expect(readFileSync(await (await dialogue).path(), 'utf8')).toContain('labels:It is indeed, my friend.');
      expect(w.bad).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
