/**
 * Answers one query brought along for a lookup that is about to be asked for, on PostgreSQL and
 * MySQL: the token (or session) read also returns its user in the same round trip, and the user
 * lookup that the guard makes right after takes it from here instead of asking the database again.
 *
 * Why a primed answer is never older than a query of the lookup itself would be: it is taken only
 * in the same event-loop turn in which its read completed, before any other request began.
 * - `observe()` (a request began: app.ts's onRequest hook) drops every primed answer, and a turn
 *   ends with a `setImmediate` that does the same. So a request can only take an answer whose read
 *   completed after it began.
 * - Inside that turn the only code that runs is what awaited the completed read: the request that
 *   made it (its guard asks for the user next), and the pool handing the freed connection to the next
 *   waiting query, which then only sends that query. Another request's user lookup never runs there.
 * - An answer is taken once: a second lookup of the same key reads again.
 */
export class Primer<K, V> {
  readonly #answers = new Map<K, V>();
  #clearing = false;
  readonly #clear = () => {
    this.#clearing = false;
    this.#answers.clear();
  };

  prime(key: K, value: V): void {
    this.#answers.set(key, value);
    if (!this.#clearing) {
      this.#clearing = true;
      setImmediate(this.#clear);
    }
  }

  /** The primed answer for `key` (removed), or undefined. */
  take(key: K): V | undefined {
    if (this.#answers.size === 0) return undefined;
    const value = this.#answers.get(key);
    if (value !== undefined) this.#answers.delete(key);
    return value;
  }

  /** A request began: nothing primed before may serve it. */
  drop(): void {
    if (this.#answers.size > 0) this.#answers.clear();
  }
}

/** `load`, but a primed answer for the key is used first (see Primer). */
export function primedLookup<K, V>(
  primer: Primer<K, V>,
  load: (key: K) => Promise<V> | V,
): (key: K) => Promise<V> | V {
  return (key) => {
    const primed = primer.take(key);
    return primed === undefined ? load(key) : primed;
  };
}
