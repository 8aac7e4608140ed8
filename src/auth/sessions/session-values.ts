import type { SessionData } from './sessions.ts';

const FLASH = '_flash';

/**
 * The values a session keeps between requests, as one request reads and changes them, with flash
 * values that live for exactly the following request (status messages after a redirect). `dirty`
 * tells the session whether its row must be written back.
 */
export class SessionValues {
  #data: SessionData = {};
  #oldFlash: Record<string, unknown> = {};
  #dirty = false;

  /** Takes a stored session's values; last request's flash is readable now and gone from the row. */
  open(stored: SessionData): void {
    this.#data = { ...stored };
    const flash = this.#data[FLASH];
    if (flash && typeof flash === 'object') {
      this.#oldFlash = flash as Record<string, unknown>;
      delete this.#data[FLASH];
      this.#dirty = true;
    }
  }

  get dirty(): boolean {
    return this.#dirty;
  }

  /** What the row holds from now on. */
  get data(): SessionData {
    return this.#data;
  }

  get empty(): boolean {
    return Object.keys(this.#data).length === 0;
  }

  get(key: string): unknown {
    return this.#data[key];
  }

  put(key: string, value: unknown): void {
    this.#data[key] = value;
    this.#dirty = true;
  }

  pull(key: string): unknown {
    const value = this.#data[key];
    if (value !== undefined) {
      delete this.#data[key];
      this.#dirty = true;
    }
    return value;
  }

  /** Shown on the next request only. */
  flash(key: string, value: unknown): void {
    const flash = (this.#data[FLASH] as Record<string, unknown> | undefined) ?? {};
    this.#data[FLASH] = { ...flash, [key]: value };
    this.#dirty = true;
  }

  flashed(key: string): unknown {
    return this.#oldFlash[key];
  }

  /** `data` was just written (a new row holds it, or it was saved). */
  written(data: SessionData = this.#data): void {
    this.#data = data;
    this.#dirty = false;
  }

  /** Everything forgotten and the row to be written so (this request's flash stays readable). */
  reset(): void {
    this.#data = {};
    this.#dirty = true;
  }

  /** Everything forgotten, nothing to write (the row is gone). */
  clear(): void {
    this.#data = {};
    this.#oldFlash = {};
    this.#dirty = false;
  }
}
