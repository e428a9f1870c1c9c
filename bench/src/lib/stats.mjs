// Summaries over rounds. A round's value per implementation is one number; the summary is the
// median with the minimum and maximum (with 3–5 rounds an IQR would say little more).

export function median(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function summarize(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return undefined;
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), n: finite.length };
}

/**
 * The ratio of `ours` to `peer` on one metric: the median of the per-round ratios, each taken
 * between runs of the same round (adjacent in time, so a machine whose load drifts between rounds
 * moves both sides alike), with their min and max. Rounds where either side is missing are skipped.
 */
export function pairedRatio(oursRounds, peerRounds, key) {
  const ratios = [];
  for (let i = 0; i < Math.min(oursRounds.length, peerRounds.length); i++) {
    const a = oursRounds[i]?.[key];
    const b = peerRounds[i]?.[key];
    if (Number.isFinite(a) && Number.isFinite(b) && b !== 0) ratios.push(a / b);
  }
  return summarize(ratios);
}

/** Percentile (0–100) of an unsorted numeric array, nearest-rank. */
export function percentile(values, p) {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** [median, min, max] of the finite values: how the in-process A/B clients print a series. */
export function spread(values) {
  const s = summarize(values);
  return s === undefined ? undefined : [s.median, s.min, s.max];
}

/**
 * An in-process A/B client's report over its pairs: each side's spread of every key over its rows,
 * and the spread of the per-pair ratios this / base (`rows[i]` of both sides ran in pair i).
 */
export function abReport(base, ours, keys) {
  const report = {};
  for (const s of [base, ours]) {
    report[s.label] = Object.fromEntries(keys.map((k) => [k, spread(s.rows.map((r) => r[k]))]));
  }
  report.thisOverBase = Object.fromEntries(
    keys.map((k) => [k, spread(ours.rows.map((r, i) => r[k] / base.rows[i][k]))]),
  );
  return report;
}
