// The PASS/MISS computation of `pnpm bench` on a fixed input: a pure function of a results file,
// so every goal's value and verdict is pinned here (no timing is measured).
import { describe, expect, it } from 'vitest';
import { evaluateGoals } from '../src/lib/goals.mjs';
import { withTwins } from '../src/lib/runner.mjs';
import { renderGoals } from '../src/lib/table.mjs';

const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: sorted[sorted.length >> 1],
    min: sorted[0],
    max: sorted[sorted.length - 1],
    n: values.length,
  };
};
const row = (id, rounds, extra = {}) => {
  const keys = Object.keys(rounds[0]);
  return {
    id,
    available: true,
    rounds,
    summary: Object.fromEntries(keys.map((k) => [k, summary(rounds.map((r) => r[k]))])),
    ...extra,
  };
};
const ratio = (median) => ({ median, min: median, max: median, n: 3 });

/** One run's results: every goal passes except the four marked MISS below. */
const RESULTS = [
  {
    id: 'http-echo',
    rows: [
      row('snodo-2026', [{ cpuUsPerRequest: 55 }, { cpuUsPerRequest: 58 }, { cpuUsPerRequest: 70 }], {
        ratios: { bare: ratio(0.62) },
      }),
      // MISS twice: 0.59 of bare, 61 µs.
      row('snodo-2025', [{ cpuUsPerRequest: 61 }, { cpuUsPerRequest: 61 }, { cpuUsPerRequest: 61 }], {
        ratios: { bare: ratio(0.59) },
      }),
    ],
  },
  {
    id: 'http-large',
    rows: [
      // Per round ours / bare: 1.4, 1.6, 1.5 → median 1.5, on the bound: PASS.
      row('snodo-2026', [{ cpuUsPerMb: 140 }, { cpuUsPerMb: 160 }, { cpuUsPerMb: 150 }]),
      row('bare', [{ cpuUsPerMb: 100 }, { cpuUsPerMb: 100 }, { cpuUsPerMb: 100 }]),
    ],
  },
  {
    id: 'stdio',
    rows: [
      // MISS: 3.9× SDK 2.x.
      row('snodo', [{ callsPerSecond: 1 }], { ratios: { 'sdk-v1': ratio(2), 'sdk-v2': ratio(3.9) } }),
    ],
  },
  {
    id: 'proxy',
    rows: [
      // Added p50 per round: 0.2, 0.4, 0.25 → 0.25 ms. CPU ratio median 1.3.
      row('proxy', [
        { p50At4: 0.7, cpuVsBackend: 1.2 },
        { p50At4: 0.9, cpuVsBackend: 1.3 },
        { p50At4: 0.75, cpuVsBackend: 1.4 },
      ]),
      row('direct', [{ p50At4: 0.5 }, { p50At4: 0.5 }, { p50At4: 0.5 }]),
    ],
  },
  {
    id: 'decode',
    rows: [
      row('2mb-records', [{ ratio: 1.1 }]),
      // MISS: 1.31×.
      row('2mb-text', [{ ratio: 1.31 }]),
    ],
  },
  { id: 'churn', rows: [row('snodo', [{ rssGrowthMb: 19.9 }])] },
  // No subscriptions scenario in this run: its goals are n/a.
];

describe('evaluateGoals', () => {
  it('judges every goal of issue 23 from ratios of the same run', () => {
    const verdicts = evaluateGoals(RESULTS).map((g) => [g.id, g.verdict, g.value]);
    expect(verdicts).toEqual([
      ['http-echo-snodo-2026-vs-bare', 'PASS', 0.62],
      ['http-echo-snodo-2026-cpu', 'PASS', 58],
      ['http-echo-snodo-2025-vs-bare', 'MISS', 0.59],
      ['http-echo-snodo-2025-cpu', 'MISS', 61],
      ['http-large-cpu-per-byte', 'PASS', 1.5],
      ['stdio-vs-sdk-v1', 'PASS', 2],
      ['stdio-vs-sdk-v2', 'MISS', 3.9],
      ['proxy-cpu-vs-backend', 'PASS', 1.3],
      ['proxy-added-p50', 'PASS', expect.closeTo(0.25, 10)],
      ['decode-2mb-records', 'PASS', 1.1],
      ['decode-2mb-text', 'MISS', 1.31],
      ['churn-rss-flat', 'PASS', 19.9],
      ['subscription-rss', 'n/a', undefined],
      ['subscription-heap', 'n/a', undefined],
    ]);
  });

  it('skips rows that were not available and rounds without a value', () => {
    const results = [
      {
        id: 'http-large',
        rows: [
          row('snodo-2026', [{ cpuUsPerMb: 300 }, { cpuUsPerMb: Number.NaN }]),
          row('bare', [{ cpuUsPerMb: 100 }, { cpuUsPerMb: 100 }]),
        ],
      },
      { id: 'stdio', rows: [{ id: 'snodo', available: false, rounds: [] }] },
    ];
    const goals = Object.fromEntries(evaluateGoals(results).map((g) => [g.id, g]));
    expect(goals['http-large-cpu-per-byte']).toMatchObject({ verdict: 'MISS', value: 3 });
    expect(goals['stdio-vs-sdk-v1']).toMatchObject({ verdict: 'n/a', value: undefined });
  });

  it('prints one line per goal with its verdict first', () => {
    const lines = renderGoals(evaluateGoals(RESULTS)).split('\n');
    expect(lines).toHaveLength(14);
    expect(lines[2]).toBe('MISS  HTTP echo (2025-06-18 session) req/s ≥ 0.60× bare node:http: 0.59×');
    expect(lines[12]).toBe('n/a   subscriptions: server RSS per open stream < 20 KB: not measured');
  });
});

describe('--base twins', () => {
  it('puts a base twin right after each row of ours, and none after peers', () => {
    const rows = [
      { id: 'a', role: 'ours' },
      { id: 'peer', role: 'peer' },
      { id: 'b', role: 'ours', noBase: true },
    ];
    expect(withTwins(rows, undefined)).toBe(rows);
    expect(withTwins(rows, '/base').map((r) => [r.id, r.role, r.root, r.twinOf])).toEqual([
      ['a', 'ours', undefined, undefined],
      ['a@base', 'base', '/base', 'a'],
      ['peer', 'peer', undefined, undefined],
      ['b', 'ours', undefined, undefined],
    ]);
  });
});
