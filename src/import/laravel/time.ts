/**
 * Laravel writes timestamps as wall-clock text ('2024-05-01 12:30:00') in its app timezone
 * (config('app.timezone'), UTC unless changed), without saying which. Gatehouse keeps epoch
 * milliseconds, so the import reads that text in the zone the operator names (--timezone, default UTC).
 * A value with an explicit offset (PostgreSQL timestamptz: '…+02') is exact and needs no zone.
 */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(?:\s*(Z|[+-]\d{2}(?::?\d{2})?))?$/;

/** Epoch milliseconds; null for NULL, '' and MySQL's zero date; undefined when it cannot be read. */
export function laravelTimestamp(value: unknown, zone: string): number | null | undefined {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value !== 'string') return undefined;
  const match = TIMESTAMP.exec(value.trim());
  if (match === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offset] = match;
  if (y === '0000') return null; // MySQL's zero date: "no value" to Laravel
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const check = new Date(wall);
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return undefined;
  if (offset !== undefined) return wall + ms - offsetMs(offset);
  return wallToUtc(wall, zone) + ms;
}

/** Throws a RangeError for a zone name the runtime does not know. */
export function checkTimeZone(zone: string): void {
  formatter(zone);
}

function offsetMs(offset: string): number {
  if (offset === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0')) * 60_000;
}

/** The instant at which clocks in `zone` showed `wall` (read as if it were UTC). */
function wallToUtc(wall: number, zone: string): number {
  if (zone === 'UTC') return wall;
  // The zone's offset at a first guess, then at the corrected instant (right across DST changes).
  const first = wall - zoneOffset(wall, zone);
  return wall - zoneOffset(first, zone);
}

function zoneOffset(instant: number, zone: string): number {
  const parts = formatter(zone).formatToParts(new Date(instant));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return asUtc - (instant - (((instant % 1000) + 1000) % 1000));
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  return format;
}
