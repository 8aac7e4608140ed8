import { createRequire } from 'node:module';

interface Parsed {
  readonly browser: { readonly name?: string; readonly version?: string };
  readonly os: { readonly name?: string; readonly version?: string };
}

// ua-parser-js 1.x (MIT; 2.x is AGPL) is CommonJS without bundled types: called as a function it
// parses one User-Agent string. Its regexes are maintained against new browsers, which ours would not be.
const parse = createRequire(import.meta.url)('ua-parser-js') as (userAgent: string) => Parsed;

/** "Firefox 128" and "Windows 10" from a User-Agent header; null for what it cannot tell. */
export function describeUserAgent(userAgent: string | null): {
  browser: string | null;
  platform: string | null;
} {
  if (userAgent === null || userAgent === '') return { browser: null, platform: null };
  const { browser, os } = parse(userAgent.slice(0, 512));
  const major = browser.version?.split('.')[0];
  return {
    browser: browser.name ? (major ? `${browser.name} ${major}` : browser.name) : null,
    platform: os.name ? (os.version ? `${os.name} ${os.version}` : os.name) : null,
  };
}
