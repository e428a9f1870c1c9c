// The one table the run prints (markdown, so BENCHMARKS.md can hold it as printed): a bold line
// per scenario naming its metrics, then a row per implementation, each metric as
// "median (min–max)" over the rounds, then our rows' ratio to each peer on the primary metric
// (the median of per-round ratios, with their min–max).
import { formatNumber } from './runner.mjs';

export function renderTable(results) {
  const width = Math.max(...results.map((r) => r.metrics.length));
  const head = ['implementation', ...Array.from({ length: width }, () => ''), 'vs peers'];
  const lines = [row(head), row(head.map(() => '---'))];
  results.forEach((result, index) => {
    const title = `**${index + 1}. ${result.title}**${result.truncated ? ' (budget reached)' : ''}`;
    const ratioHead = result.rows.some((r) => r.ratios !== undefined && Object.keys(r.ratios).length > 0)
      ? `**${result.metrics.find((m) => m.key === result.primary)?.label} ratio**`
      : '';
    lines.push(
      row([
        title,
        ...Array.from({ length: width }, (_, m) =>
          result.metrics[m] ? `**${result.metrics[m].label}**` : '',
        ),
        ratioHead,
      ]),
    );
    result.rows.forEach((r) => {
      const capped = r.rounds.find((values) => values?.capped);
      const cells = [capped ? `${r.label} (stopped at ${formatNumber(capped.sessions)} sessions)` : r.label];
      if (!r.available) {
        cells.push('not available', ...Array(width - 1).fill(''), '');
      } else if (r.summary[result.primary] === undefined) {
        cells.push(
          `failed: ${(r.errors?.[0] ?? 'no round completed').split('\n')[0].slice(0, 80)}`,
          ...Array(width - 1).fill(''),
          '',
        );
      } else {
        for (let m = 0; m < width; m++) cells.push(metricCell(result.metrics[m], r.summary));
        cells.push(ratioCell(result, r));
      }
      lines.push(row(cells));
    });
  });
  return lines.join('\n');
}

/** One line per goal: PASS, MISS or n/a, the value this run measured, and the goal. */
export function renderGoals(goals) {
  return goals
    .map((g) => {
      const value =
        g.value === undefined ? 'not measured' : `${formatNumber(g.value, g.digits)}${g.unit ?? ''}`;
      return `${g.verdict.padEnd(4)}  ${g.name}: ${value}`;
    })
    .join('\n');
}

/**
 * With --base: per row of ours and per metric, the base checkout's median, this checkout's, and
 * this / base as the median of per-round ratios (min–max). Empty when no row had a base twin.
 */
export function renderBase(results) {
  const lines = [];
  for (const result of results) {
    for (const r of result.rows.filter((x) => x.baseRatios !== undefined)) {
      const twin = result.rows.find((x) => x.twinOf === r.id);
      for (const metric of result.metrics) {
        const ratio = r.baseRatios[metric.key];
        const before = twin?.summary?.[metric.key]?.median;
        const after = r.summary?.[metric.key]?.median;
        if (ratio === undefined && before === undefined && after === undefined) continue;
        const spread = ratio?.n > 1 ? ` (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})` : '';
        lines.push(
          row([
            `${result.id}: ${r.label}`,
            metric.label,
            formatNumber(before, metric.digits),
            formatNumber(after, metric.digits),
            ratio === undefined ? '–' : `${ratio.median.toFixed(2)}×${spread}`,
          ]),
        );
      }
    }
  }
  if (lines.length === 0) return '';
  const head = ['row', 'metric', 'base (median)', 'this (median)', 'this / base (per-round)'];
  return [row(head), row(head.map(() => '---')), ...lines].join('\n');
}

function metricCell(metric, summary) {
  if (metric === undefined) return '';
  const s = summary[metric.key];
  if (s === undefined) return '';
  const spread =
    s.n > 1 ? ` (${formatNumber(s.min, metric.digits)}–${formatNumber(s.max, metric.digits)})` : '';
  return `${formatNumber(s.median, metric.digits)}${spread}`;
}

function ratioCell(result, r) {
  if (r.ratios === undefined) return '';
  const parts = [];
  for (const [peerId, ratio] of Object.entries(r.ratios)) {
    const peer = result.rows.find((x) => x.id === peerId);
    const name = peer?.short ?? peerId;
    const spread = ratio.n > 1 ? ` (${fmtRatio(ratio.min, peer)}–${fmtRatio(ratio.max, peer)})` : '';
    parts.push(`${fmtRatio(ratio.median, peer)}${peer?.role === 'ceiling' ? ' of' : ''} ${name}${spread}`);
  }
  return parts.join(' · ');
}

function fmtRatio(value, peer) {
  if (peer?.role === 'ceiling') return `${Math.round(value * 100)}%`;
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;
}

function row(cells) {
  return `| ${cells.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`;
}
