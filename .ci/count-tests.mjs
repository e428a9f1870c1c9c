// Sums vitest's JSON reports (one per workspace package) into the closing line CI reads.
// Exits non-zero when no report exists or no test ran, so an empty run is never green.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const roots = ['packages', 'examples', 'tests'].flatMap((dir) =>
  existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [],
);
roots.push('bench');

let passed = 0;
let failed = 0;
let reports = 0;
for (const root of roots) {
  const file = join(root, '.vitest-report.json');
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  reports += 1;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A file that failed without a failing test (it did not load, or a hook threw) counts once.
  for (const file of report.testResults ?? []) {
    const failing = file.assertionResults?.some((test) => test.status === 'failed');
    if (file.status === 'failed' && !failing) failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(reports > 0 && passed > 0 && failed === 0 ? 0 : 1);
