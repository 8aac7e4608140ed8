import type { Clock } from '../lib/clock.ts';
import type { KeySet, SigningKeys } from './signing-keys.ts';

/** How stale an instance's key set may get: a rotation is seen within this (docs: "within 5 s"). */
const CHECK_INTERVAL_MS = 2000;

/**
 * This instance's copy of the signing keys. Every instance signs with the keys in the database: a use
 * more than CHECK_INTERVAL_MS after the last look first compares the stored key set's version (one
 * small aggregate query) and reloads when it moved — so after `oidc:rotate-keys` every instance that
 * signs or verifies anything does so with the new keys within seconds, without a message bus.
 */
export class KeyRing {
  #set: KeySet | null = null;
  #checkedAt = 0;
  #checking: Promise<KeySet> | null = null;

  constructor(
    private readonly keys: SigningKeys,
    private readonly clock: Clock,
  ) {}

  /** The current key set; synchronous while it was checked recently (the token check's hot path). */
  current(): KeySet | Promise<KeySet> {
    if (this.#set !== null && this.clock.now() - this.#checkedAt < CHECK_INTERVAL_MS) return this.#set;
    this.#checking ??= this.#check().finally(() => {
      this.#checking = null;
    });
    return this.#checking;
  }

  /** Looks at the stored version now (a token signed by a key this instance has not seen yet). */
  async refresh(): Promise<KeySet> {
    this.#checkedAt = 0;
    return this.current();
  }

  async #check(): Promise<KeySet> {
    const now = this.clock.now();
    if (this.#set === null) {
      // The first start of an installation creates its keys.
      await this.keys.ensure();
      this.#set = await this.keys.load();
    } else if ((await this.keys.version()) !== this.#set.version) {
      this.#set = await this.keys.load();
    }
    this.#checkedAt = now;
    return this.#set;
  }
}
