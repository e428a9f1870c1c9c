// Decoder microbench child (an in-process measurement of a library function, in its own process so
// that the runner's heap does not disturb it). Times core's decodeMessage, with every limit given
// explicitly (its defaults, the values every transport uses), against plain JSON.parse on the same
// message, in alternating batches so that both see the same machine load:
//   node decode.mjs --shape records|text --bytes N --ms BUDGET
// prints { decodeMs, parseMs, ratio, ... } as JSON: medians over the timed batches after a warm-up,
// `ratio` being the median of the per-batch-pair ratios.
import { parseArgs } from 'node:util';
import { importSnodo } from '../lib/checkout.mjs';

const { values } = parseArgs({
  options: {
    shape: { type: 'string', default: 'records' },
    bytes: { type: 'string' },
    ms: { type: 'string', default: '3000' },
  },
});

const LIMITS = { maxIntegerDigits: 64, maxIdBytes: 256 };
const text = message(values.shape, Number(values.bytes));

let decodeMessage;
try {
  ({ decodeMessage } = await importSnodo('@snodo/core'));
} catch (error) {
  console.log(JSON.stringify({ unavailable: `@snodo/core: ${error.message.split('\n')[0]}` }));
  process.exit(0);
}
const kind = decodeMessage(text, LIMITS).kind;
if (kind !== 'request') throw new Error(`the bench message decoded as ${kind}`);
const decode = () => decodeMessage(text, LIMITS);
const parse = () => JSON.parse(text);

const budget = Number(values.ms);
// Batches of about 10 ms each: long enough to time, short enough to take a median of many.
let reps = 1;
for (;;) {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) parse();
  if (performance.now() - t0 > 10) break;
  reps *= 2;
}
const time = (fn) => {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return (performance.now() - t0) / reps;
};
const decodeTimes = [];
const parseTimes = [];
const ratios = [];
const end = performance.now() + budget;
// The first third of the budget is warm-up (JIT, heap sizing), discarded.
const warm = performance.now() + budget / 3;
for (let pair = 0; performance.now() < end; pair++) {
  const started = performance.now();
  // Alternate which goes first, so that neither always runs on the other's garbage.
  const [d, p] = pair % 2 === 0 ? [time(decode), time(parse)] : [time(parse), time(decode)].reverse();
  if (started < warm) continue;
  decodeTimes.push(d);
  parseTimes.push(p);
  ratios.push(d / p);
}
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const decodeMs = median(decodeTimes);
console.log(
  JSON.stringify({
    decodeMs,
    parseMs: median(parseTimes),
    ratio: median(ratios),
    decodeMbPerSecond: text.length / 1e6 / (decodeMs / 1000),
    pairs: ratios.length,
    reps,
    bytes: text.length,
  }),
);

/**
 * A tools/call request of about `size` bytes.
 *   records  arguments holding records of mixed content: integers, floats, booleans, null, nested
 *            objects, short strings with escapes and non-ASCII text (a structured payload)
 *   text     one long text argument (a document, the shape of most large MCP messages)
 */
function message(shape, size) {
  const envelope = (args) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 42,
      method: 'tools/call',
      params: {
        name: 'ingest',
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          progressToken: 'tok-1',
        },
      },
    });
  if (shape === 'text') {
    const line = 'Lorem ipsum dolor sit amet, 12345 "quoted" caf\u00e9 \u4e16\u754c - item\n';
    const of = (n) => envelope({ text: line.repeat(Math.ceil(n / line.length)).slice(0, n) });
    // Escaping makes the JSON longer than the text: scale the text so that the message is `size`.
    return of(Math.floor((size * size) / of(size).length));
  }
  const records = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const record = {
      id: i,
      name: `item-${i}`,
      label: i % 7 === 0 ? `caf\u00e9 \u4e16\u754c ${i}` : `plain label number ${i}`,
      score: i / 7,
      active: i % 2 === 0,
      tags: ['a', 'b', String(i % 13)],
      nested: { depth: 1, text: 'line one\nline "two"\t\\end', none: null, delta: -i },
    };
    length += JSON.stringify(record).length + 1;
    records.push(record);
  }
  return envelope({ records });
}
