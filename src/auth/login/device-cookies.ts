import { createHmac } from 'node:crypto';
import { hmacSha256Hex, safeEqual } from '../../lib/crypto.ts';

/** The cookie's name (docs/security.md). */
export const DEVICE_COOKIE = 'gatehouse_device';

/** How long a browser stays known: one year, in the cookie's Max-Age and in the signed issue time. */
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 3600;

/** Accounts one browser is remembered for (a shared family computer); the oldest drops out. */
const MAX_ACCOUNTS = 5;

/** Entries in the cookie value: `<userId>.<issued unix seconds>.<hmac>`, joined by `~`. */
const ENTRY = /^(\d{1,15})\.(\d{1,12})\.([0-9a-f]{64})$/;

/**
 * Device cookies (OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a browser that has
 * logged into an account is held only to the per-e-mail+IP throttle of that account, never to the
 * per-account limit an attacker spraying from many addresses can trigger, so the owner is not locked
 * out by someone else's guessing.
 *
 * The cookie proves only "this browser logged in as user N before"; it is no credential (the password
 * is still checked), so it needs no server-side row. Its MAC key is derived from APP_KEY for this one
 * purpose, so no other signature made with APP_KEY (verification links, sessions) can pass as one.
 */
export function deviceCookies(appKey: Buffer) {
  const key = createHmac('sha256', appKey).update('gatehouse device cookie').digest();
  const sign = (userId: number, issued: number) => hmacSha256Hex(key, `${userId}.${issued}`);

  /** The entries of `value` whose signature holds and whose year has not run out, newest last. */
  const valid = (value: string | undefined, now: number) => {
    const entries: Array<{ userId: number; issued: number }> = [];
    if (value === undefined || value.length > 1024) return entries;
    const nowSeconds = Math.floor(now / 1000);
    for (const part of value.split('~')) {
      const match = ENTRY.exec(part);
      if (match === null) continue;
      const userId = Number(match[1]);
      const issued = Number(match[2]);
      if (issued + DEVICE_COOKIE_MAX_AGE_SECONDS <= nowSeconds || issued > nowSeconds + 60) continue;
      // Constant-time: a forger learns nothing from how long a wrong MAC took to refuse.
      if (safeEqual(sign(userId, issued), match[3]!)) entries.push({ userId, issued });
    }
    return entries;
  };

  return {
    /** Whether the browser's cookie `value` names user `userId` with a valid signature. */
    names: (value: string | undefined, userId: number, now: number): boolean =>
      valid(value, now).some((entry) => entry.userId === userId),

    /**
     * The cookie value after `userId` logged in at `now`: a fresh entry for that user, the browser's
     * other valid accounts kept (forged, expired and surplus entries dropped).
     */
    issue: (value: string | undefined, userId: number, now: number): string => {
      const issued = Math.floor(now / 1000);
      const others = valid(value, now)
        .filter((entry) => entry.userId !== userId)
        .slice(-(MAX_ACCOUNTS - 1));
      return [...others, { userId, issued }]
        .map((entry) => `${entry.userId}.${entry.issued}.${sign(entry.userId, entry.issued)}`)
        .join('~');
    },
  };
}

export type DeviceCookies = ReturnType<typeof deviceCookies>;
