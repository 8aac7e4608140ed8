/** One sample of a Prometheus text exposition. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/**
 * Parses the Prometheus text format (version 0.0.4): `# HELP`/`# TYPE` lines, then one sample per
 * line, `name{label="value",…} value`. Throws on a line that is neither, so a malformed exposition
 * fails the test that reads it.
 */
export function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('# HELP ')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = sample[3] ?? '';
    const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;
    let read = 0;
    for (let match = label.exec(body); match !== null; match = label.exec(body)) {
      labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
      read = label.lastIndex;
    }
    if (read !== body.length) throw new Error(`malformed labels: ${line}`);
    const raw = sample[4]!;
    // Prometheus reads special values case-insensitively (Go's ParseFloat); prom-client writes "Nan".
    const special: Record<string, number> = { '+inf': Infinity, '-inf': -Infinity, nan: Number.NaN };
    const value = special[raw.toLowerCase()] ?? Number(raw);
    if (Number.isNaN(value) && raw.toLowerCase() !== 'nan') throw new Error(`malformed value: ${line}`);
    samples.push({ name: sample[1]!, labels, value });
  }
  return { samples, types };
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
export function sampleValue(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1 && Object.keys(labels).length > 0) {
    const exact = found.filter((s) => Object.keys(s.labels).length === Object.keys(labels).length);
    if (exact.length === 1) return exact[0]!.value;
  }
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}
