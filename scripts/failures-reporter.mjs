// A second test reporter beside TAP (scripts/test.mjs): at the end of the run it prints each failed test
// again — file, name and the first lines of its error — so the last screen of a long CI log says what
// failed, without scrolling back through 1,700 results. A suite that failed only because a test inside
// it did is not repeated.
import { relative } from 'node:path';

const MAX_ERROR_LINES = 12;

export default async function* failuresReporter(source) {
  const failures = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const error = event.data.details?.error;
    if (error?.failureType === 'subtestsFailed') continue;
    failures.push({ file: event.data.file, name: event.data.name, error });
  }
  if (failures.length === 0) return;
  yield `\n# ${failures.length} failed:\n`;
  for (const { file, name, error } of failures) {
    yield `# ✗ ${file ? relative(process.cwd(), file) : '(file unknown)'}\n#   ${name}\n`;
    const cause = error?.cause ?? error;
    const text = String(cause?.stack ?? cause?.message ?? cause ?? '')
      .split('\n')
      .filter((line) => !/\(node:|at node:/.test(line))
      .slice(0, MAX_ERROR_LINES)
      .map((line) => `#     ${line}\n`)
      .join('');
    yield text;
  }
}
