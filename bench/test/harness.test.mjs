// Keeps the harness from rotting: one scenario, one short round, tiny sizes, through the real CLI,
// and the shape of the JSON it writes. Asserts no timing: only that numbers are numbers.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const RUN = fileURLToPath(new URL('../src/run.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'snodo-bench-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pnpm bench --quick', () => {
  it('runs the HTTP echo scenario for one round and writes the result shape', async () => {
    const out = join(dir, 'quick.json');
    const args = [
      RUN,
      '--quick',
      '--rounds',
      '1',
      '--only',
      'http-echo',
      '--rows',
      'snodo-2026,sdk-v2,bare',
      '--out',
      out,
    ];
    const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 28_000 });
    expect(stdout).toContain('| implementation |');

    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(report).toMatchObject({ schema: 1, quick: true, rounds: 1 });
    expect(report.machine).toMatchObject({ nproc: expect.any(Number), node: process.version });
    expect(report.machine.loadavg).toHaveLength(3);
    expect(report.scenarios.map((s) => s.id)).toEqual(['http-echo']);

    const [scenario] = report.scenarios;
    expect(scenario).toMatchObject({
      title: expect.any(String),
      primary: 'rps',
      rounds: 1,
      truncated: false,
    });
    expect(scenario.metrics.map((m) => m.key)).toEqual([
      'rps',
      'p50',
      'p99',
      'cpuUsPerRequest',
      'allocKbPerRequest',
    ]);
    expect(scenario.rows.map((r) => r.id)).toEqual(['snodo-2026', 'sdk-v2', 'bare']);
    for (const row of scenario.rows) {
      expect(row.rounds).toHaveLength(1);
      if (!row.available) {
        expect(row.reason).toEqual(expect.any(String));
        continue;
      }
      expect(row.errors).toBeUndefined();
      for (const key of ['rps', 'p50', 'p99']) {
        expect(row.summary[key]).toMatchObject({
          median: expect.any(Number),
          min: expect.any(Number),
          max: expect.any(Number),
          n: 1,
        });
      }
    }
    // The ceiling has no implementation to wait for: it always runs.
    expect(scenario.rows.find((r) => r.id === 'bare').available).toBe(true);
    const ours = scenario.rows.find((r) => r.id === 'snodo-2026');
    if (ours.available) expect(ours.ratios.bare).toMatchObject({ median: expect.any(Number) });
    // Goals of scenarios this run left out are not measured; the echo ones are judged.
    const verdicts = Object.fromEntries(report.goals.map((g) => [g.id, g.verdict]));
    expect(verdicts['stdio-vs-sdk-v1']).toBe('n/a');
    if (ours.available) expect(['PASS', 'MISS']).toContain(verdicts['http-echo-snodo-2026-vs-bare']);
    expect(stdout).toMatch(/^(PASS|MISS) {2}HTTP echo \(2026-07-28\) req\/s ≥ 0\.60× bare node:http: /m);
  });
});
