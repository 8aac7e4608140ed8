/** Rows left out, by reason, with the first few source ids of each (enough to look them up). */
export class Skips {
  static readonly EXAMPLES = 5;
  readonly #reasons = new Map<string, { count: number; ids: string[] }>();

  add(reason: string, id: number | string): void {
    const entry = this.#reasons.get(reason) ?? { count: 0, ids: [] };
    entry.count++;
    if (entry.ids.length < Skips.EXAMPLES) entry.ids.push(String(id));
    this.#reasons.set(reason, entry);
  }

  get total(): number {
    let total = 0;
    for (const { count } of this.#reasons.values()) total += count;
    return total;
  }

  entries(): { reason: string; count: number; ids: readonly string[] }[] {
    return [...this.#reasons].map(([reason, { count, ids }]) => ({ reason, count, ids }));
  }
}

/** What one kind of row came to. */
export interface Phase {
  /** Rows of this kind in the source (for tokens: of the imported tokenable type). */
  found: number;
  imported: number;
  /** Imported by an earlier run: the same id with the same e-mail, or the same token hash. */
  alreadyThere: number;
  readonly skips: Skips;
}
