import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expectAccessible, expectNoAxeViolations, settled } from './a11y.ts';
import { ARTIFACTS } from './paths.ts';

/**
 * Pictures of pages to look at (PNG files the file viewer shows), in every language and at a desktop
 * and a phone width:
 *
 *   await eachView(page, async (lang) => {
 *     await page.goto(withLang(`${base}/login`, lang));
 *     await screenshot(page, 'login');            // test/artifacts/login-en-1280.png, …
 *   });
 */

export { ARTIFACTS };
export const LANGUAGES = ['en', 'de', 'fr', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];
/** A laptop and a phone (iPhone 12–15 class). */
export const WIDTHS = [1280, 390] as const;
const HEIGHTS: Record<number, number> = { 1280: 800, 390: 844 };

/**
 * Whether pictures are taken: yes on a developer's machine, where they are looked at; not under CI=true,
 * where nobody looks and the ~300 full-page PNGs cost a fifth of the page suites' time (measured: the
 * panel pages' suite 68 s → 55 s alone). SCREENSHOTS=1 takes them anyway, SCREENSHOTS=0 never. The
 * checks themselves (axe, focus, forced colours, sideways scrolling) run either way.
 */
export const TAKE_SCREENSHOTS = process.env['SCREENSHOTS']
  ? process.env['SCREENSHOTS'] !== '0'
  : process.env['CI'] !== 'true';

/** `url` with `lang=` set (the server then keeps the language in a cookie). */
export function withLang(url: string, lang: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('lang', lang);
  return parsed.toString();
}

/**
 * Saves a full-page screenshot as test/artifacts/<name>-<lang>-<width>.png, the language read from
 * `<html lang>` and the width from the viewport. Returns the file's path ('' when TAKE_SCREENSHOTS is off).
 */
export async function screenshot(page: Page, name: string, suffix = ''): Promise<string> {
  if (!TAKE_SCREENSHOTS) return '';
  mkdirSync(ARTIFACTS, { recursive: true });
  const lang = (await page.getAttribute('html', 'lang')) ?? 'xx';
  const width = page.viewportSize()?.width ?? 0;
  const path = join(ARTIFACTS, `${name}-${lang}-${width}${suffix}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** A page fits its viewport: nothing makes the whole page scroll sideways (tables scroll inside themselves). */
export async function expectNoSidewaysScroll(page: Page, label: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => {
    const g = globalThis as unknown as {
      document: { documentElement: { scrollWidth: number } };
      innerWidth: number;
    };
    return { scrollWidth: g.document.documentElement.scrollWidth, innerWidth: g.innerWidth };
  });
  assert.ok(
    scrollWidth <= innerWidth,
    `${label}: the page is ${scrollWidth}px wide in a ${innerWidth}px window`,
  );
}

/**
 * The usual check of one view: a screenshot as loaded, then the accessibility check in English (axe
 * and the focus walk; at the desktop width also in dark and in forced colors, whose colours do not
 * depend on the width) or axe alone in the other languages (their text differs, their styles do not),
 * and no sideways scrolling. Returns the view's label for messages.
 */
export async function checkView(
  page: Page,
  name: string,
  lang: string,
  width: number,
  options: { maxTabs?: number } = {},
): Promise<string> {
  const label = `${name} [${lang}, ${width}px]`;
  await screenshot(page, name);
  const wide = width >= 1024;
  if (lang === 'en' && wide && TAKE_SCREENSHOTS) {
    // The dark colour scheme too, as <name>-en-1280-dark.png.
    await page.emulateMedia({ colorScheme: 'dark' });
    await settled(page);
    await screenshot(page, name, '-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await settled(page);
  }
  if (lang === 'en')
    await expectAccessible(page, label, { maxTabs: options.maxTabs, dark: wide, forcedColors: wide });
  else await expectNoAxeViolations(page, label);
  await expectNoSidewaysScroll(page, label);
  return label;
}

export interface ViewOptions {
  languages?: readonly string[];
  widths?: readonly number[];
}

/**
 * Runs `view` for every language × width (8 views by default), with the viewport set first. The view
 * navigates (with `withLang`) and then checks and photographs what it reached.
 */
export async function eachView(
  page: Page,
  view: (lang: string, width: number) => Promise<void>,
  options: ViewOptions = {},
): Promise<void> {
  for (const width of options.widths ?? WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHTS[width] ?? 800 });
    for (const lang of options.languages ?? LANGUAGES) await view(lang, width);
  }
}
