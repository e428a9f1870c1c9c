// 8. Core path in process: one tools/call echo at a time through each layer of core, with no
// socket or pipe, so what core itself costs (and what each layer adds) is visible apart from
// node's I/O. A fresh child per round (clients/core-path.mjs); CPU µs and KB allocated per call.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ROOT_ENV } from '../lib/checkout.mjs';
import { Unavailable } from '../lib/child.mjs';

const run = promisify(execFile);
const CLIENT = fileURLToPath(new URL('../clients/core-path.mjs', import.meta.url));

const ROWS = [
  { id: 'dispatch', path: 'dispatch', label: 'decodeMessage → dispatch → encodeJson', role: 'ours' },
  { id: 'executor', path: 'executor', label: 'the same, dispatch run by an Executor', role: 'ours' },
  { id: 'handle', path: 'handle', label: 'HTTP core: handle(runtime, request)', role: 'ours' },
  {
    id: 'floor',
    path: 'floor',
    label: 'JSON.parse + JSON.stringify, no MCP work',
    role: 'ceiling',
    short: 'floor',
  },
];

export default {
  id: 'core-path',
  title: 'Core path in process: one echo call per layer, no I/O',
  budgetMs: 40_000,
  params: (quick) => ({ calls: quick ? 500 : 40_000 }),
  metrics: [
    { key: 'usPerCall', label: 'CPU µs/call', better: 'lower', digits: 2 },
    { key: 'allocKbPerCall', label: 'KB allocated/call', better: 'lower', digits: 2 },
  ],
  primary: 'usPerCall',
  rows: () => ROWS,
  async run(row, ctx) {
    const args = [CLIENT, '--path', row.path, '--calls', String(ctx.params.calls)];
    const env = ctx.root === undefined ? process.env : { ...process.env, [ROOT_ENV]: ctx.root };
    const { stdout } = await run(process.execPath, args, { timeout: 60_000, env });
    const result = JSON.parse(stdout.trim().split('\n').pop());
    if (result.unavailable !== undefined) throw new Unavailable(result.unavailable);
    return result;
  },
};
