// Runs one scenario: every row (our implementations, the peers, the ceiling) once per round, in an
// order rotated each round so that no row always runs first or last, within the scenario's time
// budget. A row whose implementation is missing is recorded as not available, once, and skipped.
import { Unavailable, Worker } from './child.mjs';
import { missing, SERVERS } from './servers.mjs';
import { pairedRatio, summarize } from './stats.mjs';

const AUTOCANNON = new URL('../clients/autocannon.mjs', import.meta.url);

/** @returns the scenario's result object (see README/BENCHMARKS.md for the shape). */
export async function runScenario(scenario, { rounds, quick, rowIds, log }) {
  const started = Date.now();
  const deadline = started + scenario.budgetMs;
  const params = scenario.params(quick);
  const roundCount = Math.max(1, Math.min(rounds, scenario.maxRounds?.(quick) ?? rounds));
  const rows = scenario
    .rows(quick)
    .filter((row) => rowIds === undefined || rowIds.includes(row.id))
    .map((row) => ({ ...row, rounds: [], available: true }));
  for (const row of rows) {
    const spec = SERVERS[row.server];
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
          const values = await scenario.run(row, ctx);
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
  const peers = rows.filter((row) => row.role !== 'ours' && row.available);
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
  const result = {
    id: scenario.id,
    title: scenario.title,
    params,
    rounds: roundCount,
    budgetMs: scenario.budgetMs,
    elapsedMs: Date.now() - started,
    truncated,
    primary: scenario.primary,
    metrics: scenario.metrics,
    rows: rows.map(({ server: _server, lastMs: _lastMs, ...row }) => row),
  };
  result.targets = scenario.targets?.(result) ?? [];
  return result;
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
