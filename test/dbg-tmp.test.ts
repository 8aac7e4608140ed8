import { createServer } from 'node:net';
import { test } from 'node:test';
import { createTestApp } from './helpers/app.ts';
import { launchChromium } from './helpers/chromium.ts';

test('dbg', async () => {
  const port = await new Promise<number>((r) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address() as { port: number };
      s.close(() => r(a.port));
    });
  });
  const base = `http://localhost:${port}`;
  const t = await createTestApp('sqlite', { env: { APP_URL: base } });
  await t.app.listen({ port, host: 'localhost' });
  const browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('console', (m) => console.log('console:', m.type(), m.text()));
  page.on('pageerror', (e) => console.log('pageerror:', e.message));
  await page.goto(`${base}/login`);
  await new Promise((r) => setTimeout(r, 1500));
  console.log(
    await page.evaluate(() => (globalThis as any).document.querySelector('[data-passkey-login]').outerHTML),
  );
  await context.close();
  await browser.close();
  await t.close();
});
