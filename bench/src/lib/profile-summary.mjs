// Summarizes a .cpuprofile: self time per area (core, decoder, executor, http, node internals…),
// per function and per file (packages shortened).
export function summarize(profile, top) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const interval = (profile.endTime - profile.startTime) / profile.samples.length / 1000; // ms per sample
  const self = new Map();
  const perFile = new Map();
  const perArea = new Map();
  let total = 0;
  for (const id of profile.samples) {
    const { callFrame } = byId.get(id);
    const where = shortUrl(callFrame.url);
    const key = `${callFrame.functionName || '(anonymous)'}  ${where}:${callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + 1);
    perFile.set(where, (perFile.get(where) ?? 0) + 1);
    const area = areaOf(callFrame.url, callFrame.functionName);
    perArea.set(area, (perArea.get(area) ?? 0) + 1);
    total++;
  }
  const print = (title, map, n) => {
    console.log(`\n${title} (${total} samples, ${(total * interval).toFixed(0)} ms)`);
    for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
    }
  };
  print('self time by area', perArea, perArea.size);
  print('self time by function', self, top);
  print('self time by file', perFile, top);
}

/**
 * The area a sample's function belongs to. Core is split into what the issue's profiles name:
 * the decoder (json/, jsonrpc/), the executor, core's HTTP layer; everything else of core is
 * `core`. Node's own JavaScript is `node internals`; V8's pseudo-frames keep their names.
 */
export function areaOf(url, functionName = '') {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'gc';
    if (functionName === '(idle)' || functionName === '(program)') return functionName;
    return 'native (V8 builtins, C++)';
  }
  if (url.startsWith('node:')) return 'node internals';
  const core = /\/packages\/core\/(?:dist|src)\/([^/]+)\//.exec(url);
  if (core) {
    if (core[1] === 'json' || core[1] === 'jsonrpc') return 'core: decoder/encoder (json, jsonrpc)';
    if (core[1] === 'executor') return 'core: executor';
    if (core[1] === 'http') return 'core: http';
    return 'core: dispatch, dialects, router, ops';
  }
  const pkg = /\/packages\/([^/]+)\/(?:dist|src)\//.exec(url);
  if (pkg) return pkg[1] === 'transport-http' || pkg[1] === 'fastify' ? `http host (${pkg[1]})` : pkg[1];
  if (/\/examples\//.test(url)) return 'demo server';
  const nm = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) return `dependency ${nm[1]}`;
  return 'other';
}

function shortUrl(url) {
  if (url === '') return '(native)';
  const m = /\/(packages|examples)\/([^/]+)\/(?:dist|src)\/(.+)$/.exec(url);
  if (m) return `${m[2]}/${m[3]}`;
  const nm = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.+)$/.exec(url);
  if (nm) return `${nm[1]}/${nm[2]}`;
  return url.replace(/^node:/, 'node:');
}
