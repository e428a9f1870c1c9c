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

export function renderTargets(results) {
  const lines = [];
  for (const result of results) {
    for (const target of result.targets) {
      const mark = target.met === undefined ? 'n/a ' : target.met ? 'MET ' : 'MISS';
      const value =
        target.value === undefined ? 'not measured' : formatNumber(target.value, target.digits ?? 2);
      lines.push(`${mark}  ${target.name}: ${value}${target.unit ?? ''}`);
    }
  }
  return lines.join('\n');
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
