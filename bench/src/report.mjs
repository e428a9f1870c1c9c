#!/usr/bin/env node
// Rewrites the results section of BENCHMARKS.md (between its two markers) from a results file:
//   node src/report.mjs [results/latest.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { evaluateGoals } from './lib/goals.mjs';
import { renderBase, renderGoals, renderTable } from './lib/table.mjs';

const file = process.argv[2] ?? new URL('../results/latest.json', import.meta.url);
const doc = new URL('../../BENCHMARKS.md', import.meta.url);
const report = JSON.parse(readFileSync(file, 'utf8'));
const { machine: m } = report;
const START = '<!-- results:start -->';
const END = '<!-- results:end -->';

const section = [
  START,
  '',
  `Run of ${report.startedAt.slice(0, 16).replace('T', ' ')} UTC, ${report.rounds} rounds, ${Math.round(report.elapsedMs / 1000)} s: ` +
    `${m.nproc} cores (\`nproc\`), ${m.cpu} (/proc/cpuinfo), ${m.memoryGb} GB, Node.js ${m.node}, ${m.platform}; ` +
    `load average at start ${m.loadavg.join(' ')}, at the end ${report.loadavgAtEnd.join(' ')}.`,
  '',
  renderTable(report.scenarios),
  '',
  ...(report.base === undefined
    ? []
    : [`Against the base checkout (\`--base ${report.base}\`):`, '', renderBase(report.scenarios), '']),
  'Goals (issue 23):',
  '',
  '```',
  renderGoals(report.goals ?? evaluateGoals(report.scenarios)),
  '```',
  '',
  END,
].join('\n');

const text = readFileSync(doc, 'utf8');
const from = text.indexOf(START);
const to = text.indexOf(END);
if (from < 0 || to < 0) throw new Error(`BENCHMARKS.md has no ${START} … ${END} section`);
writeFileSync(doc, text.slice(0, from) + section + text.slice(to + END.length));
console.log(`BENCHMARKS.md: results of ${report.startedAt}`);
