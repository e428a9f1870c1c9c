// One command for the example: starts the HTTP backend (the demo server on 127.0.0.1:4101), then
// snodo-proxy with proxy.json, which also spawns the demo server over stdio. Ctrl-C stops both.
//   node start.mjs           serve http://127.0.0.1:4000/mcp until interrupted
//   node start.mjs --check   start, call a tool of each backend through the proxy, stop
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@snodo/client';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const demo = join(dirname(require.resolve('everything/package.json')), 'dist', 'main.js');
const bin = join(dirname(require.resolve('@snodo/proxy/package.json')), 'dist', 'cli', 'main.js');
const check = process.argv.includes('--check');

/** Resolves with the first match of `pattern` in a child's output, passing the output through. */
function waitFor(child, stream, pattern, sink) {
  return new Promise((resolve, reject) => {
    let text = '';
    child[stream].on('data', (chunk) => {
      sink.write(chunk);
      text += chunk;
      const match = text.match(pattern);
      if (match) resolve(match);
    });
    child.once('exit', (code) =>
      reject(new Error(`${stream === 'stdout' ? 'the backend' : 'snodo-proxy'} exited (${code})`)),
    );
  });
}

const backend = spawn(process.execPath, [demo, '--port', '4101'], { stdio: ['ignore', 'pipe', 'inherit'] });
await waitFor(backend, 'stdout', /http:\/\/\S+/, process.stderr);
const proxy = spawn(process.execPath, [bin, '--config', join(here, 'proxy.json')], {
  stdio: ['ignore', 'inherit', 'pipe'],
});
const [, url] = await waitFor(proxy, 'stderr', /listening on (http:\/\/\S+)/, process.stderr);

function stop(code = 0) {
  proxy.once('exit', () => {
    backend.once('exit', () => process.exit(code));
    backend.kill('SIGTERM');
  });
  proxy.kill('SIGTERM');
}
process.once('SIGINT', () => stop());
process.once('SIGTERM', () => stop());

if (check) {
  try {
    const client = await connect({ http: url });
    const tools = await client.allTools();
    console.log(`${tools.length} tools through ${url}: ${tools.map((t) => t.name).join(', ')}`);
    for (const name of ['local.echo', 'w.echo']) {
      const result = await client.callTool(name, { text: `hello via ${name}` });
      console.log(`${name} -> ${result.content[0].text}`);
    }
    await client.close();
    stop(0);
  } catch (error) {
    console.error(error);
    stop(1);
  }
} else {
  console.error(`proxy-example: serving ${url} (local.* over stdio, w.* over HTTP); Ctrl-C to stop`);
}
