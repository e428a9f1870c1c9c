// The goals of issue 23, each computed from the figures of one run (ratios between rows measured in
// the same rounds) and judged PASS, MISS, or n/a when the run did not measure it (a scenario left
// out with --only, a row not available). A pure function of the results: bench/test/goals.test.mjs
// pins it on a fixed input.

const row = (scenarios, scenarioId, rowId) =>
  scenarios.find((s) => s.id === scenarioId)?.rows.find((r) => r.id === rowId && r.available !== false);

/** The median of per-round values `f(round, i)` over the rounds where it is a finite number. */
function medianOver(rounds, f) {
  const values = [];
  for (let i = 0; i < rounds; i++) {
    const v = f(i);
    if (Number.isFinite(v)) values.push(v);
  }
  values.sort((a, b) => a - b);
  if (values.length === 0) return undefined;
  const mid = values.length >> 1;
  return values.length % 2 === 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

const at = (r, i, key) => r?.rounds?.[i]?.[key];
const roundsOf = (...rows) => Math.max(0, ...rows.map((r) => r?.rounds?.length ?? 0));

/** `atLeast` or `atMost` the goal. */
const GOALS = [
  ...[
    ['snodo-2026', '2026-07-28'],
    ['snodo-2025', '2025-06-18 session'],
  ].flatMap(([id, era]) => [
    {
      id: `http-echo-${id}-vs-bare`,
      name: `HTTP echo (${era}) req/s ≥ 0.60× bare node:http`,
      atLeast: 0.6,
      unit: '×',
      value: (s) => row(s, 'http-echo', id)?.ratios?.bare?.median,
    },
    {
      id: `http-echo-${id}-cpu`,
      name: `HTTP echo (${era}) server CPU ≤ 60 µs/request`,
      atMost: 60,
      unit: ' µs',
      digits: 0,
      value: (s) => row(s, 'http-echo', id)?.summary?.cpuUsPerRequest?.median,
    },
  ]),
  {
    id: 'http-large-cpu-per-byte',
    name: 'HTTP 1 MB argument: server CPU per byte ≤ 1.5× bare node:http',
    atMost: 1.5,
    unit: '×',
    value: (s) => {
      const ours = row(s, 'http-large', 'snodo-2026');
      const bare = row(s, 'http-large', 'bare');
      return medianOver(roundsOf(ours, bare), (i) => at(ours, i, 'cpuUsPerMb') / at(bare, i, 'cpuUsPerMb'));
    },
  },
  {
    id: 'stdio-vs-sdk-v1',
    name: 'stdio calls/s ≥ 2× SDK 1.x',
    atLeast: 2,
    unit: '×',
    value: (s) => row(s, 'stdio', 'snodo')?.ratios?.['sdk-v1']?.median,
  },
  {
    id: 'stdio-vs-sdk-v2',
    name: 'stdio calls/s ≥ 4× SDK 2.x',
    atLeast: 4,
    unit: '×',
    value: (s) => row(s, 'stdio', 'snodo')?.ratios?.['sdk-v2']?.median,
  },
  {
    id: 'proxy-cpu-vs-backend',
    name: 'proxy CPU per forwarded call ≤ 1.3× the backend’s',
    atMost: 1.3,
    unit: '×',
    value: (s) => row(s, 'proxy', 'proxy')?.summary?.cpuVsBackend?.median,
  },
  {
    id: 'proxy-added-p50',
    name: 'proxy adds ≤ 0.3 ms to p50 at 4 connections',
    atMost: 0.3,
    unit: ' ms',
    digits: 3,
    value: (s) => {
      const proxy = row(s, 'proxy', 'proxy');
      const direct = row(s, 'proxy', 'direct');
      return medianOver(roundsOf(proxy, direct), (i) => at(proxy, i, 'p50At4') - at(direct, i, 'p50At4'));
    },
  },
  ...[
    ['records', 'structured records'],
    ['text', 'one long text'],
  ].map(([shape, what]) => ({
    id: `decode-2mb-${shape}`,
    name: `decoder ≤ 1.3× JSON.parse on 2 MB (${what})`,
    atMost: 1.3,
    unit: '×',
    value: (s) => row(s, 'decode', `2mb-${shape}`)?.summary?.ratio?.median,
  })),
  {
    id: 'churn-rss-flat',
    name: 'session churn: RSS growth after GC ≤ 20 MB (worst round)',
    atMost: 20,
    unit: ' MB',
    digits: 1,
    value: (s) => row(s, 'churn', 'snodo')?.summary?.rssGrowthMb?.max,
  },
  {
    id: 'subscription-rss',
    name: 'subscriptions: server RSS per open stream < 20 KB',
    below: 20,
    unit: ' KB',
    digits: 1,
    value: (s) => row(s, 'subscriptions', 'snodo')?.summary?.rssPerStreamKb?.median,
  },
  {
    id: 'subscription-heap',
    name: 'subscriptions: server heap per open stream < 20 KB',
    below: 20,
    unit: ' KB',
    digits: 1,
    value: (s) => row(s, 'subscriptions', 'snodo')?.summary?.heapPerStreamKb?.median,
  },
];

/**
 * Every goal with its value in this run and its verdict: 'PASS', 'MISS', or 'n/a' (not measured).
 * @param scenarios the `scenarios` array of a results file (lib/runner.mjs results)
 */
export function evaluateGoals(scenarios) {
  return GOALS.map((goal) => {
    const value = goal.value(scenarios);
    const bound = goal.atLeast ?? goal.atMost ?? goal.below;
    let verdict = 'n/a';
    if (Number.isFinite(value)) {
      const met =
        goal.atLeast !== undefined
          ? value >= goal.atLeast
          : goal.atMost !== undefined
            ? value <= goal.atMost
            : value < goal.below;
      verdict = met ? 'PASS' : 'MISS';
    }
    return {
      id: goal.id,
      name: goal.name,
      value: Number.isFinite(value) ? value : undefined,
      goal: bound,
      unit: goal.unit,
      digits: goal.digits ?? 2,
      verdict,
    };
  });
}
