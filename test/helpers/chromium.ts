import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createTestApp, type TestApp, type TestAppOptions } from './app.ts';
import { requireServices } from './databases.ts';

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/**
 * Browser suites skip with a one-line reason when the system Chromium is absent, unless
 * REQUIRE_SERVICES=1 (CI), where its absence fails the run.
 */
export function chromiumSkip(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false;
  if (requireServices)
    throw new Error(`Chromium is required (REQUIRE_SERVICES=1) but missing at ${CHROMIUM_PATH}`);
  return `Chromium not installed at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
}

/**
 * The system Chromium, headless, without the background traffic a test machine does not need;
 * `extraArgs` adds switches (e.g. `--host-resolver-rules` for made-up host names).
 */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}

export interface ChromiumApp {
  t: TestApp;
  /** The listening Gatehouse, e.g. http://127.0.0.1:40123. */
  base: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/** A Gatehouse listening on a free port (SQLite) and one Chromium page, for a browser suite. */
export async function openChromiumApp(options: TestAppOptions = {}): Promise<ChromiumApp> {
  const t = await createTestApp('sqlite', options);
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  return { t, base, browser, context, page };
}

export async function closeChromiumApp(app: Partial<ChromiumApp> | undefined): Promise<void> {
  await app?.context?.close();
  await app?.browser?.close();
  await app?.t?.close();
}

/**
 * Clicks what submits a form (or follows a link) and waits for the page it leads to to finish loading.
 * `Promise.all([page.waitForLoadState(), page.click(…)])` does not: the page before the click is loaded
 * already, so it resolves at once, and a check could run on the next page while it is still being
 * parsed (an axe check once saw a <label> whose text had not arrived yet).
 */
export async function clickAndLoad(page: Page, selector: string): Promise<void> {
  const loaded = page.waitForEvent('load');
  await page.click(selector);
  await loaded;
}

/**
 * The id of the element that has focus once the page's `autofocus` has been applied ('' for the body).
 * Chromium applies `autofocus` in a rendering update, which may come after the `load` event a
 * navigation waits for: read at once, on a busy CI machine, the focus was still on the body (CI run of
 * 1100a91, `pages.test.ts`). The spec flushes autofocus candidates before a frame's animation-frame
 * callbacks, so after two frames it has happened.
 */
export async function focusedId(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const g = globalThis as unknown as {
      requestAnimationFrame(callback: () => void): void;
      document: { activeElement: { id: string } | null };
    };
    await new Promise<void>((resolve) => g.requestAnimationFrame(() => g.requestAnimationFrame(resolve)));
    return g.document.activeElement?.id ?? '';
  });
}
