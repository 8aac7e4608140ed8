/** One page of a longer list, as the panel shows it. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  /** 1-based; clamped to the last page that exists. */
  readonly page: number;
  readonly pages: number;
  readonly pageSize: number;
}

/** A requested page number from a query string: anything odd is page 1. */
export function pageNumber(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,6}$/.test(raw) ? Number(raw) : 1;
  return Math.max(1, n);
}

export function toPage<T>(items: readonly T[], total: number, page: number, pageSize: number): Page<T> {
  return { items, total, page, pages: Math.max(1, Math.ceil(total / pageSize)), pageSize };
}

/**
 * Loads page `page` through `load(limit, offset)`. Past the end (an old link after deletions, a
 * hand-edited URL), the last page is shown instead.
 */
export async function fetchPage<T>(
  load: (limit: number, offset: number) => Promise<{ items: readonly T[]; total: number }>,
  page: number,
  pageSize: number,
): Promise<Page<T>> {
  let result = await load(pageSize, (page - 1) * pageSize);
  if (result.items.length === 0 && result.total > 0 && page > 1) {
    page = Math.ceil(result.total / pageSize);
    result = await load(pageSize, (page - 1) * pageSize);
  }
  return toPage(result.items, result.total, page, pageSize);
}
