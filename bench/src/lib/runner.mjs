// Runs one scenario: every row (our implementations, the peers, the ceiling) once per round, in an
// order rotated each round so that no row always runs first or last, within the scenario's time
// budget. A row whose implementation is missing is recorded as not available, once, and skipped.
//
// With `base` (a second checkout's root), every row of ours gets a twin right after it, role
// 'base', that runs the same scenario against that checkout (`ctx.root`); the budget grows by the
// twins' share. Twins run next to their row in every round, so `baseRatios` pair them per round.
import { Unavailable, Worker } from './child.mjs';
import { missing, SERVERS, serverSpec } from './servers.mjs';
import { pairedRatio, summarize } from './stats.mjs';

const AUTOCANNON = new URL('../clients/autocannon.mjs', import.meta.url);

/** @returns the scenario's result object (see README/BENCHMARKS.md for the shape). */
export async function runScenario(scenario, { rounds, quick, rowIds, log, base }) {
  const started = Date.now();
  const params = scenario.params(quick);
  const roundCount = Math.max(1, Math.min(rounds, scenario.maxRounds?.(quick) ?? rounds));
  const chosen = scenario.rows(quick).filter((row) => rowIds === undefined || rowIds.includes(row.id));
  const rows = withTwins(chosen, base).map((row) => ({ ...row, rounds: [], available: true }));
  const budgetMs = Math.round((scenario.budgetMs * rows.length) / Math.max(1, chosen.length));
  const deadline = started + budgetMs;
  for (const row of rows) {
    const spec = SERVERS[row.server] === undefined ? undefined : serverSpec(row.server, row.root);
    const reason = spec === undefined ? undefined : missing(spec);
    if (reason !== undefined) Object.assign(row, { available: false, reason });
    if (row.available && scenario.available !== undefined) {
      const why = await scenario.available(row);
      if (why !== undefined) Object.assign(row, { available: false, reason: why });
    }
  }
  const ctx = { params, quick, load: new Worker(AUTOCANNON), deadline };
  let truncated = false;
  try {
    outer: for (let round = 0; round < roundCount; round++) {
      const order = rows.map((_, i) => rows[(i + round) % rows.length]);
      for (const row of order) {
        if (!row.available) continue;
        // A row's previous round is the estimate of its next: one that would overrun is not started.
        if (Date.now() + (row.lastMs ?? 0) > deadline) {
          truncated = true;
          break outer;
        }
        const t0 = Date.now();
        try {
          const values = await scenario.run(row, { ...ctx, root: row.root });
          row.rounds[round] = values;
          row.lastMs = Date.now() - t0;
          log(
            `  ${scenario.id} round ${round + 1}/${roundCount} ${row.id}: ${brief(scenario, values)} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
          );
        } catch (error) {
          if (error instanceof Unavailable) {
            Object.assign(row, { available: false, reason: error.message });
            log(`  ${scenario.id} ${row.id}: not available (${error.message})`);
          } else {
            row.rounds[round] = { error: error instanceof Error ? error.message : String(error) };
            log(
              `  ${scenario.id} round ${round + 1} ${row.id}: FAILED ${row.rounds[round].error.split('\n')[0]}`,
            );
          }
          if (ctx.load.child.exitCode !== null || ctx.load.child.signalCode !== null) {
            ctx.load = new Worker(AUTOCANNON);
          }
        }
      }
    }
  } finally {
    await ctx.load.close();
  }

  for (const row of rows) {
    row.rounds = Array.from({ length: roundCount }, (_, i) => row.rounds[i] ?? null);
    row.summary = {};
    for (const metric of scenario.metrics) {
      row.summary[metric.key] = summarize(row.rounds.map((values) => values?.[metric.key]));
    }
    const errors = row.rounds.filter((values) => values?.error !== undefined).map((values) => values.error);
    if (errors.length > 0) row.errors = errors;
    const failures = row.rounds.reduce((sum, values) => sum + (values?.failures ?? 0), 0);
    if (failures > 0) row.failures = failures;
  }
  const peers = rows.filter((row) => row.role !== 'ours' && row.role !== 'base' && row.available);
  for (const row of rows.filter((r) => r.role === 'ours' && r.available && scenario.compare !== false)) {
    row.ratios = {};
    for (const peer of peers) {
      if (row.versus !== undefined && !row.versus.includes(peer.id)) continue;
      const ratio = pairedRatio(row.rounds, peer.rounds, scenario.primary);
      if (ratio !== undefined) row.ratios[peer.id] = ratio;
      // Every metric's paired ratio, for the JSON (server CPU per request is the figure that
      // moves least with the machine's load).
      row.metricRatios ??= {};
      row.metricRatios[peer.id] = Object.fromEntries(
        scenario.metrics.map((m) => [m.key, pairedRatio(row.rounds, peer.rounds, m.key)?.median]),
      );
    }
  }
  // This checkout against the base, per metric: the median of per-round ratios (this / base).
  for (const twin of rows.filter((r) => r.role === 'base' && r.available)) {
    const row = rows.find((r) => r.id === twin.twinOf);
    if (row === undefined || !row.available) continue;
    row.baseRatios = Object.fromEntries(
      scenario.metrics.map((m) => [m.key, pairedRatio(row.rounds, twin.rounds, m.key)]),
    );
  }
  const result = {
    id: scenario.id,
    title: scenario.title,
    params,
    rounds: roundCount,
    budgetMs,
    base,
    elapsedMs: Date.now() - started,
    truncated,
    primary: scenario.primary,
    metrics: scenario.metrics,
    rows: rows.map(({ server: _server, lastMs: _lastMs, root: _root, ...row }) => row),
  };
  return result;
}

/** Each row of ours followed by its base twin (when `base` is set and the scenario allows it). */
export function withTwins(rows, base) {
  if (base === undefined) return rows;
  return rows.flatMap((row) =>
    row.role === 'ours' && row.noBase !== true
      ? [
          row,
          {
            ...row,
            id: `${row.id}@base`,
            label: `${row.label} [base]`,
            role: 'base',
            twinOf: row.id,
            root: base,
          },
        ]
      : [row],
  );
}

function brief(scenario, values) {
  return scenario.metrics
    .filter((m) => values[m.key] !== undefined)
    .map((m) => `${m.label} ${formatNumber(values[m.key], m.digits)}`)
    .join(', ');
}

export function formatNumber(value, digits = 0) {
  if (value === undefined || value === null || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
