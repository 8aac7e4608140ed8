/** Time source in epoch milliseconds; tests pass a fake one to cross expiry boundaries without sleeping. */
export interface Clock {
  now(): number;
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const systemClock: Clock = { now: Date.now };

export function fakeClock(start = Date.now()): Clock & { advance(ms: number): void; set(ms: number): void } {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}
