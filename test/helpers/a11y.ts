import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/**
 * Accessibility checks for a page open in Chromium, to run on every page state a test reaches:
 *
 *   await expectAccessible(page, 'login, failed');
 *
 * 1. axe-core (pinned in package.json) finds no WCAG 2.x A/AA or best-practice violation;
 * 2. every link, button and form control reached with Tab shows a focus indicator of at least 3:1
 *    against the background it is drawn on (WCAG 2.2 1.4.11 / 2.4.7), and form controls have a
 *    boundary of at least 3:1 (1.4.11);
 * 3. the same indicators stay visible in forced-colors (Windows High Contrast) mode, where a
 *    box-shadow is dropped and only outlines and borders are drawn.
 *
 * `expectAccessible` restores the page's colour scheme and forced-colors setting when it is done.
 */

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets axe runs: WCAG 2.0–2.2 A and AA, plus its best practices (landmarks, headings). */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

export interface AccessibleOptions {
  /** Also check the page in the dark colour scheme (prefers-color-scheme: dark). Default true. */
  dark?: boolean;
  /** Also walk the page in forced-colors mode. Default true. */
  forcedColors?: boolean;
  /** How many Tab presses the focus walk makes at most. Default 80. */
  maxTabs?: number;
}

export async function expectAccessible(page: Page, label: string, options: AccessibleOptions = {}) {
  await expectNoAxeViolations(page, label);
  await expectVisibleFocus(page, label, options.maxTabs);
  if (options.dark !== false) {
    await page.emulateMedia({ colorScheme: 'dark' });
    await settled(page);
    try {
      await expectNoAxeViolations(page, `${label} (dark)`);
      await expectVisibleFocus(page, `${label} (dark)`, options.maxTabs);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
      await settled(page);
    }
  }
  if (options.forcedColors === false) return;
  await page.emulateMedia({ forcedColors: 'active' });
  try {
    await expectVisibleFocus(page, `${label} (forced colors)`, options.maxTabs, true);
  } finally {
    await page.emulateMedia({ forcedColors: 'none' });
  }
}

/**
 * Brings running CSS transitions (a colour-scheme switch starts some) to their end at once, so colours
 * are final. Finished rather than awaited: in Chromium 156 the `finished` promise of a transition on an
 * element inside a closed <details> never settles (its playState says "finished"), and waiting on it
 * hung the verification notice's walk until the file's ten-minute timeout; the others would cost their
 * 0.15-0.2 s for nothing. getAnimations() first brings styles up to date, so the transitions the switch
 * causes are among those it returns.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(() => {
    const { document } = globalThis as unknown as { document: { getAnimations(): { finish(): void }[] } };
    for (const animation of document.getAnimations()) {
      try {
        animation.finish();
      } catch {
        // An endless animation cannot be finished; it is not a colour change in progress.
      }
    }
  });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * axe-core in the page (evaluated over the DevTools protocol, so the page's CSP does not apply). Its
 * source (550 KB) is handed to the browser once per browser context, as a script every new document of
 * that context runs first: sent again with every check, the source alone took 40–100 ms of each check
 * on the CI machine, most page walks' checks being one per navigation. The document open at the first
 * check gets it by evaluation.
 */
const contextsWithAxe = new WeakSet<BrowserContext>();

export async function expectNoAxeViolations(page: Page, label: string): Promise<void> {
  const context = page.context();
  if (!contextsWithAxe.has(context)) {
    contextsWithAxe.add(context);
    await context.addInitScript(axeSource);
  }
  let violations = await runAxe(page);
  if (violations === null) {
    await page.evaluate(axeSource);
    violations = await runAxe(page);
  }
  assert.ok(violations !== null, `${label}: axe-core could not be loaded into the page`);
  assert.equal(
    violations.length,
    0,
    `${label}: axe found ${violations.length} violation(s):\n` +
      violations
        .map(
          (v) =>
            `  ${v.id} (${v.impact}): ${v.help}\n` +
            v.nodes
              .slice(0, 5)
              .map((n) => `    ${JSON.stringify(n.target)} ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`)
              .join('\n'),
        )
        .join('\n'),
  );
}

/** axe's violations on the page as it is, or null when axe is not in the page. */
function runAxe(page: Page): Promise<AxeViolation[] | null> {
  return page.evaluate(async (tags) => {
    const g = globalThis as unknown as {
      axe?: { run(o: unknown): Promise<{ violations: unknown[] }> };
      document: { readyState: string };
      addEventListener(type: string, listener: () => void, options: { once: boolean }): void;
    };
    const { axe } = g;
    if (typeof axe !== 'object') return null;
    // axe is in a new document from its first line (an init script): a check that comes before the
    // document has finished loading waits for it, rather than judging a page half parsed.
    if (g.document.readyState !== 'complete') {
      await new Promise<void>((resolve) => g.addEventListener('load', resolve, { once: true }));
    }
    const result = await axe.run({ runOnly: { type: 'tag', values: tags } });
    return result.violations as AxeViolation[];
  }, AXE_TAGS);
}

export interface FocusProbe {
  /** A short description of the focused element: tag, id or text. */
  element: string;
  /** Contrast of the focus indicator against the background it is drawn on (0 when there is none). */
  focusContrast: number;
  /** For inputs and selects: contrast of the border against the background behind the control. */
  boundaryContrast: number | null;
  /** Outline width in CSS px (forced colors keep outlines, drop box-shadows). */
  outlineWidth: number;
}

/**
 * Walks the page with Tab from the top and measures what each focused element shows. The walk ends
 * when focus leaves the document or comes back to an element already seen.
 *
 * The page measures each element itself, in a `focusin` listener (focus and :focus-visible are set
 * before the event), instead of one DevTools round trip per Tab to ask what has focus: on the CI
 * machine a round trip to the page took 7 ms and a Tab 9 ms, so asking after each Tab made the page
 * suites wait for the renderer most of their time. Whether the walk is over is asked after every few
 * Tabs; a Tab more than needed only comes back to an element already seen.
 */
let walks = 0;
const TABS_BETWEEN_CHECKS = 6;

export async function focusWalk(page: Page, maxTabs = 80): Promise<FocusProbe[]> {
  const walk = `walk-${++walks}`;
  // The measuring function, defined in the page once (a string is evaluated as it is, so it needs no
  // eval() in the page, which the CSP forbids).
  await page.evaluate(`globalThis.__gatehouseProbeFocused ??= ${probeFocused.toString()}`);
  await page.evaluate(startWalk, walk);
  const session = await devtoolsOf(page);
  for (let pressed = 0; pressed < maxTabs; ) {
    const batch = Math.min(TABS_BETWEEN_CHECKS, maxTabs - pressed);
    await pressTabs(session, batch);
    pressed += batch;
    if (await page.evaluate(walkOver)) break;
  }
  return page.evaluate(endWalk);
}

const sessions = new WeakMap<Page, Promise<CDPSession>>();
function devtoolsOf(page: Page): Promise<CDPSession> {
  let session = sessions.get(page);
  if (session === undefined) {
    session = page.context().newCDPSession(page);
    sessions.set(page, session);
  }
  return session;
}

/**
 * `count` presses of Tab, as the keyboard sends them (what Playwright's keyboard.press('Tab') sends),
 * sent at once and awaited together: the browser hands input events to the page in the order they
 * came, one after the other, so focus moves exactly as by as many separate presses — without a round
 * trip each.
 */
async function pressTabs(session: CDPSession, count: number): Promise<void> {
  const key = { key: 'Tab', code: 'Tab', windowsVirtualKeyCode: 9, text: '', unmodifiedText: '' };
  const sent: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    sent.push(session.send('Input.dispatchKeyEvent', { type: 'keyDown', ...key }));
    sent.push(session.send('Input.dispatchKeyEvent', { type: 'keyUp', ...key }));
  }
  await Promise.all(sent);
}

interface WalkState {
  probes: FocusProbe[];
  over: boolean;
  stop(): void;
}
type WalkGlobals = BrowserGlobals & {
  __gatehouseProbeFocused(walk: string): FocusProbe | null;
  __gatehouseFocusWalk?: WalkState;
};

/**
 * Runs in the page: starts from the top, whatever has focus now (an autofocused field) — a focusable
 * placeholder first in <body> takes focus and is removed once Tab has moved on from it — and measures
 * every element that takes focus from then on, until one comes back or focus leaves the page.
 */
function startWalk(walk: string): void {
  const g = globalThis as unknown as WalkGlobals;
  const { document } = g;
  const start = document.createElement('span');
  start.setAttribute('tabindex', '-1');
  start.setAttribute('data-focus-walk-start', '');
  document.body.prepend(start);
  start.focus();
  const state: WalkState = { probes: [], over: false, stop: () => {} };
  const onFocus = () => {
    if (state.over) return;
    document.querySelector('[data-focus-walk-start]')?.remove();
    const probe = g.__gatehouseProbeFocused(walk);
    if (probe === null) state.over = true;
    else state.probes.push(probe);
  };
  document.addEventListener('focusin', onFocus, true);
  state.stop = () => document.removeEventListener('focusin', onFocus, true);
  g.__gatehouseFocusWalk = state;
}

/** Runs in the page: whether the walk has ended (an element came back, or focus left the page). */
function walkOver(): boolean {
  const g = globalThis as unknown as WalkGlobals;
  const state = g.__gatehouseFocusWalk!;
  const active = g.document.activeElement;
  if (active === null || active === g.document.body) state.over = true;
  return state.over;
}

/** Runs in the page: what the walk measured. Leaves nothing focused (a focused skip link would cover
 * the header for the next check). */
function endWalk(): FocusProbe[] {
  const g = globalThis as unknown as WalkGlobals;
  const state = g.__gatehouseFocusWalk!;
  state.stop();
  g.__gatehouseFocusWalk = undefined;
  g.document.activeElement?.blur();
  return state.probes;
}

export async function expectVisibleFocus(
  page: Page,
  label: string,
  maxTabs?: number,
  forcedColors = false,
): Promise<void> {
  const probes = await focusWalk(page, maxTabs);
  assert.ok(probes.length > 0, `${label}: nothing on the page can be reached with Tab`);
  const problems: string[] = [];
  for (const p of probes) {
    if (forcedColors) {
      if (p.outlineWidth < 1) problems.push(`${p.element}: no outline in forced colors`);
      continue;
    }
    if (p.focusContrast < 3) problems.push(`${p.element}: focus indicator ${p.focusContrast.toFixed(2)}:1`);
    if (p.boundaryContrast !== null && p.boundaryContrast < 3)
      problems.push(`${p.element}: control border ${p.boundaryContrast.toFixed(2)}:1`);
  }
  assert.deepEqual(problems, [], `${label}: focus and boundary contrast below 3:1`);
}

/** The few DOM shapes the in-page functions use (the project's TypeScript has no DOM library). */
interface Styles {
  getPropertyValue(name: string): string;
}
interface El {
  tagName: string;
  focus(): void;
  blur(): void;
  remove(): void;
  prepend(child: El): void;
  id: string;
  textContent: string | null;
  parentElement: El | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
}
interface BrowserGlobals {
  document: {
    activeElement: El | null;
    body: El;
    createElement(tag: string): El;
    querySelector(selector: string): El | null;
    addEventListener(type: string, listener: () => void, capture: boolean): void;
    removeEventListener(type: string, listener: () => void, capture: boolean): void;
  };
  getComputedStyle(element: El): Styles;
  getSelection?: () => { removeAllRanges(): void } | null;
}

/**
 * Runs in the page: measures the focused element, or null when focus has left the page or come back
 * to an element this walk has measured. Self-contained (Playwright serialises it).
 */
function probeFocused(walk: string): FocusProbe | null {
  const g = globalThis as unknown as BrowserGlobals;
  const el = g.document.activeElement;
  if (el === null || el === g.document.body || el.getAttribute('data-focus-walk') === walk) return null;
  el.setAttribute('data-focus-walk', walk);

  type Rgba = [number, number, number, number];
  const parse = (value: string): Rgba | null => {
    const m = /rgba?\(([^)]+)\)/.exec(value);
    if (!m) return null;
    const parts = m[1]!
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    return [parts[0]!, parts[1]!, parts[2]!, parts[3] ?? 1];
  };
  const over = (top: Rgba, bottom: Rgba): Rgba => {
    const a = top[3];
    return [
      top[0] * a + bottom[0] * (1 - a),
      top[1] * a + bottom[1] * (1 - a),
      top[2] * a + bottom[2] * (1 - a),
      1,
    ];
  };
  /** The opaque colour behind an element: its ancestors' backgrounds, blended from the top. */
  const backgroundOf = (start: El | null): Rgba => {
    const layers: Rgba[] = [];
    for (let node = start; node !== null; node = node.parentElement) {
      const color = parse(g.getComputedStyle(node).getPropertyValue('background-color'));
      if (color && color[3] > 0) {
        layers.push(color);
        if (color[3] >= 1) break;
      }
    }
    let result: Rgba = [255, 255, 255, 1];
    for (const layer of layers.reverse()) result = over(layer, result);
    return result;
  };
  const luminance = ([r, g2, b]: Rgba) => {
    const channel = (c: number) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g2) + 0.0722 * channel(b);
  };
  const contrast = (a: Rgba, b: Rgba) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
    return (hi + 0.05) / (lo + 0.05);
  };

  const style = g.getComputedStyle(el);
  const behind = backgroundOf(el.parentElement);
  const outlineWidth =
    style.getPropertyValue('outline-style') === 'none'
      ? 0
      : Number.parseFloat(style.getPropertyValue('outline-width')) || 0;
  let focusContrast = 0;
  if (outlineWidth >= 1) {
    const color = parse(style.getPropertyValue('outline-color'));
    if (color) focusContrast = contrast(over(color, behind), behind);
  } else {
    // A box-shadow ring counts only when it is solid and at least 2px (a soft glow is not an indicator).
    const shadow = style.getPropertyValue('box-shadow');
    const ring = /(rgba?\([^)]+\))\s+0px\s+0px\s+0px\s+(\d+(?:\.\d+)?)px/.exec(shadow);
    const color = ring ? parse(ring[1]!) : null;
    if (color && Number(ring![2]) >= 2) focusContrast = contrast(over(color, behind), behind);
  }
  const tag = el.tagName.toLowerCase();
  const type = el.getAttribute('type');
  const textual =
    tag === 'select' || tag === 'textarea' || (tag === 'input' && type !== 'checkbox' && type !== 'radio');
  let boundaryContrast: number | null = null;
  if (textual && type !== 'hidden') {
    const border = parse(style.getPropertyValue('border-top-color'));
    boundaryContrast = border ? contrast(over(border, behind), behind) : 0;
  }
  const text = (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 30);
  const name = el.getAttribute('name');
  const element = `<${tag}${el.id ? `#${el.id}` : ''}${name ? ` name=${name}` : ''}>${text}`;
  return { element, focusContrast, boundaryContrast, outlineWidth };
}
