// 7. Decoding: core's decoder (decodeMessage, every limit on) against plain JSON.parse, on 2 MB
// and 20 KB tools/call requests of two shapes. Each round of a case is a fresh child process
// (clients/decode.mjs) timing both functions in alternating batches; the ratio is decodeMessage's
// time over JSON.parse's, paired batch by batch.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ROOT_ENV } from '../lib/checkout.mjs';
import { Unavailable } from '../lib/child.mjs';

const run = promisify(execFile);
const CLIENT = fileURLToPath(new URL('../clients/decode.mjs', import.meta.url));

const CASES = [
  { size: '2 MB', bytes: 2_000_000, quickBytes: 20_000 },
  { size: '20 KB', bytes: 20_000, quickBytes: 2_000 },
];
const SHAPES = [
  { shape: 'records', what: 'structured records' },
  { shape: 'text', what: 'one long text' },
];

const ROWS = CASES.flatMap((c) =>
  SHAPES.map((s) => ({
    id: `${c.size.replace(' ', '').toLowerCase()}-${s.shape}`,
    label: `${c.size} tools/call, ${s.what}`,
    role: 'ours',
    shape: s.shape,
    bytes: c.bytes,
    quickBytes: c.quickBytes,
  })),
);

export default {
  id: 'decode',
  title: 'Decoding: decodeMessage (all limits) vs JSON.parse',
  budgetMs: 40_000,
  params: (quick) => ({ ms: quick ? 150 : 1_500 }),
  metrics: [
    { key: 'ratio', label: 'decodeMessage / JSON.parse time', better: 'lower', digits: 2 },
    { key: 'decodeMs', label: 'decodeMessage ms', better: 'lower', digits: 3 },
    { key: 'parseMs', label: 'JSON.parse ms', better: 'lower', digits: 3 },
    { key: 'decodeMbPerSecond', label: 'decodeMessage MB/s', better: 'higher', digits: 0 },
  ],
  primary: 'ratio',
  compare: false,
  rows: () => ROWS,
  async run(row, ctx) {
    const bytes = ctx.quick ? row.quickBytes : row.bytes;
    const args = [CLIENT, '--shape', row.shape, '--bytes', String(bytes), '--ms', String(ctx.params.ms)];
    const env = ctx.root === undefined ? process.env : { ...process.env, [ROOT_ENV]: ctx.root };
    const { stdout } = await run(process.execPath, args, { timeout: 60_000, env });
    const result = JSON.parse(stdout.trim().split('\n').pop());
    if (result.unavailable !== undefined) throw new Unavailable(result.unavailable);
    return result;
  },
};
