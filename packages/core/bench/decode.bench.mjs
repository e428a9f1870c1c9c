// Micro benchmark: decodeMessage vs JSON.parse, encodeJson vs JSON.stringify, on 2 MB and 20 KB
// messages. Run after a build: `npx tsc -b && node bench/decode.bench.mjs`. Prints the median of
// per-round time ratios (candidate / baseline, interleaved); asserts nothing.
import { encodeJson } from '../dist/json/encode.js';
import { JsonInt } from '../dist/json/int.js';
import { decodeMessage } from '../dist/jsonrpc/decode.js';

const utf8 = new TextDecoder();
const bytesOf = (text) => new TextEncoder().encode(text);

/** A tools/call request whose arguments hold `rows` records of mixed content. */
function records(rows, { id = '42', big = false } = {}) {
  const list = [];
  for (let i = 0; i < rows; i++) {
    list.push({
      id: i,
      name: `item-${i}`,
      label: i % 7 === 0 ? `caf\u00e9 \u4e16\u754c ${i}` : `plain label number ${i}`,
      hash: (i * 2654435761).toString(16).padStart(16, '0') + '0123456789abcdef',
      score: i / 7,
      ...(big ? { big: `@${10n ** 18n + BigInt(i)}` } : {}),
      active: i % 2 === 0,
      tags: ['a', 'b', String(i % 13)],
      nested: { depth: 1, text: 'line one\nline "two"\t\\end', none: null },
    });
  }
  const params = { name: 'ingest', arguments: { records: list }, _meta: { progressToken: 'tok-1' } };
  const text = JSON.stringify({ jsonrpc: '2.0', id: '@id', method: 'tools/call', params });
  // 19-digit number tokens outside the identity paths, and the id as a raw literal.
  return text.replace(/"@(\d+)"/g, '$1').replace('"@id"', id);
}

/** A tools/call result holding one large text block: the shape of most big MCP messages. */
function textResult(rows, line = 'Lorem ipsum dolor sit amet, 12345 "quoted" caf\u00e9\n') {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    result: { content: [{ type: 'text', text: line.repeat(rows) }] },
  });
}

/** Grows `rows` until `make(rows)` is at least `bytes` long. */
function ofSize(bytes, make) {
  let rows = 16;
  while (bytesOf(make(rows)).length < bytes) rows = Math.ceil(rows * 1.25);
  return make(rows);
}

function time(fn, reps) {
  const start = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return (performance.now() - start) / reps;
}

function medianRatio(candidate, baseline, reps, rounds = 15) {
  for (let i = 0; i < 3; i++) {
    time(candidate, reps);
    time(baseline, reps);
  }
  const ratios = [];
  let base = 0;
  for (let r = 0; r < rounds; r++) {
    const b = time(baseline, reps);
    const c = time(candidate, reps);
    ratios.push(c / b);
    base += b;
  }
  ratios.sort((x, y) => x - y);
  return { ratio: ratios[rounds >> 1], baselineMs: base / rounds };
}

function report(label, candidate, baseline, reps) {
  const { ratio, baselineMs } = medianRatio(candidate, baseline, reps);
  console.log(`${label.padEnd(64)} ${ratio.toFixed(3)}  (baseline ${baselineMs.toFixed(3)} ms)`);
}

function expectKind(text, kind) {
  const got = decodeMessage(text).kind;
  if (got !== kind) throw new Error(`bench message decoded as ${got}, expected ${kind}`);
  return text;
}

console.log(`node ${process.version}; median ratio candidate / baseline`);
for (const [name, size, reps] of [
  ['2 MB', 2_000_000, 4],
  ['20 KB', 20_000, 200],
]) {
  console.log(`-- ${name}`);
  const mixed = expectKind(
    ofSize(size, (n) => records(n)),
    'request',
  );
  const bytes = bytesOf(mixed);
  const prose = expectKind(ofSize(size, textResult), 'response');
  const dashes = expectKind(
    ofSize(size, (n) => textResult(n, '| a-b | -1 | --- | 2024-01-01 |\n')),
    'response',
  );
  const bigNumbers = expectKind(
    ofSize(size, (n) => records(n, { big: true })),
    'request',
  );
  const bigId = expectKind(
    ofSize(size, (n) => records(n, { id: '9223372036854775807' })),
    'request',
  );

  report(
    'decode: records, string',
    () => decodeMessage(mixed),
    () => JSON.parse(mixed),
    reps,
  );
  report(
    'decode: records, bytes (baseline decodes UTF-8 too)',
    () => decodeMessage(bytes),
    () => JSON.parse(utf8.decode(bytes)),
    reps,
  );
  report(
    'decode: one text block',
    () => decodeMessage(prose),
    () => JSON.parse(prose),
    reps,
  );
  report(
    'decode: text full of hyphens (over budget: exact scan)',
    () => decodeMessage(dashes),
    () => JSON.parse(dashes),
    reps,
  );
  report(
    'decode: 19-digit numbers outside identity paths',
    () => decodeMessage(bigNumbers),
    () => JSON.parse(bigNumbers),
    reps,
  );
  report(
    'decode: big integer id (exact scan: the slow path)',
    () => decodeMessage(bigId),
    () => JSON.parse(bigId),
    reps,
  );

  const value = JSON.parse(mixed);
  const withInt = { ...value, id: new JsonInt('9223372036854775807') };
  report(
    'encode: records',
    () => encodeJson(value),
    () => JSON.stringify(value),
    reps,
  );
  report(
    'encode: records, ascii',
    () => encodeJson(value, { ascii: true }),
    () => JSON.stringify(value),
    reps,
  );
  report(
    'encode: records with a JsonInt id',
    () => encodeJson(withInt),
    () => JSON.stringify(value),
    reps,
  );
}
