#!/usr/bin/env node
// `pnpm bench`: runs every scenario (or --only some), prints one table and writes the results.
//   --rounds N     rounds per scenario (default 3; a scenario may cap it)
//   --only a,b     scenario ids (see --list)
//   --rows a,b     only these row ids within the scenarios (e.g. snodo-2026,sdk-v2,bare)
//   --quick        tiny sizes and short runs: checks the harness, measures nothing
//   --out PATH     where the JSON goes (default results/latest.json; results/quick.json with --quick)
//   --base PATH    also runs every row of ours against the checkout at PATH (built there), next to
//                  its row in every round, and prints base/this medians and per-round ratios
//   --list         prints the scenario ids
// Ends with the goals of issue 23, PASS or MISS each, from the ratios measured in this run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { baseProblem } from './lib/checkout.mjs';
import { evaluateGoals } from './lib/goals.mjs';
import { machine } from './lib/machine.mjs';
import { runScenario } from './lib/runner.mjs';
import { renderBase, renderGoals, renderTable } from './lib/table.mjs';
import { SCENARIOS } from './scenarios/index.mjs';

// `pnpm run bench -- --list` (npm's habit) reaches us with the `--` under pnpm ≥ 10: drop it.
const argv = process.argv.slice(2);
if (argv[0] === '--') argv.shift();
const { values } = parseArgs({
  args: argv,
  options: {
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
    rows: { type: 'string' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    base: { type: 'string' },
    list: { type: 'boolean', default: false },
  },
  strict: true,
});

if (values.list) {
  for (const s of SCENARIOS) console.log(`${s.id.padEnd(16)} ${s.title}`);
  process.exit(0);
}

const rounds = Number(values.rounds);
if (!Number.isSafeInteger(rounds) || rounds < 1)
  throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);
const only = values.only?.split(',').map((s) => s.trim());
const unknown = only?.filter((id) => !SCENARIOS.some((s) => s.id === id)) ?? [];
if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')} (see --list)`);
const selected = SCENARIOS.filter((s) => only === undefined || only.includes(s.id));
const here = dirname(fileURLToPath(import.meta.url));
const base = values.base === undefined ? undefined : resolve(values.base);
const baseUnfit = base === undefined ? undefined : baseProblem(base);
if (baseUnfit !== undefined) throw new Error(`--base ${values.base}: ${baseUnfit}`);
const out = resolve(values.out ?? `${here}/../results/${values.quick ? 'quick' : 'latest'}.json`);

const log = (line) => console.error(line);
const started = new Date();
const host = machine();
log(
  `snodo bench: ${selected.length} scenarios, ${rounds} rounds${values.quick ? ', quick' : ''}; ` +
    `${host.nproc} cores (${host.cpu}), node ${host.node}, load ${host.loadavg.join(' ')}` +
    (base === undefined ? '' : `; base checkout ${base}`),
);

const results = [];
for (const scenario of selected) {
  log(`${scenario.id}: ${scenario.title} (budget ${scenario.budgetMs / 1000} s)`);
  const rowIds = values.rows?.split(',').map((s) => s.trim());
  results.push(await runScenario(scenario, { rounds, quick: values.quick, rowIds, log, base }));
}

const report = {
  schema: 1,
  startedAt: started.toISOString(),
  elapsedMs: Date.now() - started.getTime(),
  quick: values.quick,
  rounds,
  base,
  machine: host,
  loadavgAtEnd: machine().loadavg,
  scenarios: results,
  goals: evaluateGoals(results),
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);

console.log(renderTable(results));
console.log('');
const before = renderBase(results);
if (before !== '') console.log(`This checkout against the base (${base}):\n\n${before}\n`);
console.log('Goals (issue 23):\n');
console.log(renderGoals(report.goals));
console.log('');
console.log(
  `${host.nproc} × ${host.cpu}, node ${host.node}, load average at start ${host.loadavg.join(' ')}; ` +
    `${(report.elapsedMs / 1000).toFixed(0)} s; results in ${out}`,
);
