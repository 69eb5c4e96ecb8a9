// The inspector end to end: the built CLI serves it on a real socket, Debian's Chromium drives it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, REPO, requireBuild } from '../support/cli-process.js';
import { uiFixture } from './ui-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(REPO, 'test-artifacts', 'ui');

let child: ChildProcess;
let url: string;
let browser: BrowserContext;
let dir: string;

function rawGet(target: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(target, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  requireBuild();
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  await mkdir(ARTIFACTS, { recursive: true });
  const f = await uiFixture();
  dir = f.dir;
  child = spawn(process.execPath, [CLI, 'ui', '--dir', f.dir, '--cwd', f.project], {
    env: cliEnv(f.home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`engram ui exited ${code}`)));
  });
  // A fresh profile each run (playwright passes it as --user-data-dir).
  const profile = await mkdtemp(join(tmpdir(), 'engram-ui-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

describe('engram ui on a real socket', () => {
  it('prints its loopback URL with a token first, and refuses requests without it', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{40,}$/);
    const u = new URL(url);
    expect(await rawGet(`${u.origin}/api/memories`, {})).toBe(401);
    const token = u.searchParams.get('token')!;
    expect(await rawGet(`${u.origin}/api/memories`, { 'x-engram-token': token })).toBe(200);
    expect(
      await rawGet(`${u.origin}/api/memories`, { 'x-engram-token': token, host: 'evil.example' }),
    ).toBe(403);
  });

  it('shows the memories, runs a recall, revokes a memory and draws the charts', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForSelector('#memory-table tr[data-file="postgres-migrations.md"]');
    expect(await page.locator('#memory-table tr[data-file]').count()).toBe(3);
    await page.click('#memory-table a:text("postgres-migrations.md")');
    await page.waitForSelector('#memory-detail .rendered');
    expect(await page.textContent('#memory-detail')).toContain('npm run migrate');
    await page.screenshot({ path: join(ARTIFACTS, 'memories.png'), fullPage: true });

    await page.click('nav a[data-view="playground"]');
    await page.fill('#prompt', 'how do I run the postgres migrations');
    await page.click('#run-recall');
    await page.waitForSelector('#injected');
    expect(await page.textContent('#selected')).toContain('postgres-migrations.md');
    expect(await page.textContent('#injected')).toContain('npm run migrate');
    await page.screenshot({ path: join(ARTIFACTS, 'playground.png'), fullPage: true });

    await page.click('nav a[data-view="memories"]');
    await page.click('#memory-table a:text("release-freeze.md")');
    await page.fill('#revoke-reason', 'the freeze was lifted');
    await page.click('#revoke');
    await page.waitForSelector('#revoke-result:has-text("Revoked")');
    await page.click('nav a[data-view="index"]');
    await page.waitForSelector('#index-text');
    expect(await page.textContent('#index-text')).not.toContain('release-freeze.md');
    expect(await page.textContent('#index-text')).toContain('postgres-migrations.md');
    await page.screenshot({ path: join(ARTIFACTS, 'index.png'), fullPage: true });

    await page.click('nav a[data-view="charts"]');
    await page.waitForSelector('#charts-view svg rect');
    expect(await page.locator('#charts-view figure').count()).toBe(3);
    await page.screenshot({ path: join(ARTIFACTS, 'charts.png'), fullPage: true });

    await page.click('nav a[data-view="doctor"]');
    await page.waitForSelector('#doctor-view h2');
    await page.screenshot({ path: join(ARTIFACTS, 'doctor.png'), fullPage: true });
    await page.close();
    expect(dir).toBeTruthy();
  }, 120_000);

  it('shows the HTML in a memory body as text: it cannot redirect the page or post elsewhere', async () => {
    // Memory text is untrusted (extraction, team sync): raw HTML in it is shown, never obeyed.
    await writeFile(
      join(dir, 'hostile-html.md'),
      [
        '---',
        'name: hostile html',
        'description: a memory whose body carries raw HTML',
        'type: reference',
        '---',
        'Plain **markdown** still renders.',
        '',
        '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/meta-refresh">',
        '',
        '<form action="http://127.0.0.1:9/form" method="get"><input name="q" value="x"><button id="hostile-submit">go</button></form>',
        '',
      ].join('\n'),
    );
    const page = await browser.newPage();
    const leaving: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(new URL(url).origin)) leaving.push(r.url());
    });
    await page.goto(url);
    await page.click('#memory-table a:text("hostile-html.md")');
    await page.waitForSelector('#memory-detail .rendered strong');
    const rendered = page.locator('#memory-detail .rendered');
    expect(await rendered.locator('meta, form, button, input').count()).toBe(0);
    expect(await rendered.textContent()).toContain('<meta http-equiv="refresh"');
    // A refresh that was obeyed would have left by now; the page is still the inspector.
    await page.click('nav a[data-view="index"]');
    await page.waitForSelector('#index-text');
    expect(new URL(page.url()).origin).toBe(new URL(url).origin);
    expect(leaving).toEqual([]);
    await page.close();
  }, 120_000);

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
