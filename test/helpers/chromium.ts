import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
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

/** The system Chromium, headless, without the background traffic a test machine does not need. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
