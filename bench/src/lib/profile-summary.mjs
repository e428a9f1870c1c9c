// Summarizes a .cpuprofile: self time per function and per file (packages shortened).
export function summarize(profile, top) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const interval = (profile.endTime - profile.startTime) / profile.samples.length / 1000; // ms per sample
  const self = new Map();
  const perFile = new Map();
  let total = 0;
  for (const id of profile.samples) {
    const { callFrame } = byId.get(id);
    const where = shortUrl(callFrame.url);
    const key = `${callFrame.functionName || '(anonymous)'}  ${where}:${callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + 1);
    perFile.set(where, (perFile.get(where) ?? 0) + 1);
    total++;
  }
  const print = (title, map, n) => {
    console.log(`\n${title} (${total} samples, ${(total * interval).toFixed(0)} ms)`);
    for (const [k, v] of [...map].sort((a, b) => b[1] - a[1]).slice(0, n)) {
      console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
    }
  };
  print('self time by function', self, top);
  print('self time by file', perFile, top);
}

function shortUrl(url) {
  if (url === '') return '(native)';
  const m = /\/(packages|examples)\/([^/]+)\/(?:dist|src)\/(.+)$/.exec(url);
  if (m) return `${m[2]}/${m[3]}`;
  const nm = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.+)$/.exec(url);
  if (nm) return `${nm[1]}/${nm[2]}`;
  return url.replace(/^node:/, 'node:');
}
