#!/usr/bin/env node
// One command for the example: starts the HTTP backend (the demo server on a free loopback port),
// then snodo-proxy with proxy.json (which also spawns the demo server over stdio), its listen port
// and the HTTP backend's URL filled in. SIGINT or SIGTERM stops both.
//   node dist/main.js --port N [--host H]   serve http://127.0.0.1:N/mcp until stopped
//   node dist/main.js --stdio               serve the proxy on stdin/stdout
//   node dist/main.js --check               start on a free port, call a tool of each backend, stop
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect } from '@snodo/client';

const USAGE = 'usage: main.js --port N [--host H] | --stdio | --check';
const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    stdio: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
  },
  strict: true,
});
const modes = [values.port !== undefined, values.stdio, values.check].filter(Boolean).length;
const port = values.check ? 0 : Number(values.port);
if (modes !== 1 || (!values.stdio && (!Number.isInteger(port) || port < 0 || port > 65535))) {
  console.error(`give one of --port N (0 to 65535), --stdio and --check\n${USAGE}`);
  process.exit(2);
}

const here = dirname(dirname(fileURLToPath(import.meta.url))); // examples/proxy
const require = createRequire(import.meta.url);
const demo = join(dirname(require.resolve('everything/package.json')), 'dist', 'main.js');
const bin = join(dirname(require.resolve('@snodo/proxy/package.json')), 'dist', 'cli', 'main.js');

/** Resolves with the first match of `pattern` in `stream`, passing the text on to stderr. */
function waitFor(child: ChildProcess, stream: Readable, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      text += chunk.toString();
      const match = text.match(pattern);
      if (match) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`a child exited (${code}) before it was ready`)));
  });
}

const backend = spawn(process.execPath, [demo, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const [backendUrl] = await waitFor(backend, backend.stdout as Readable, /http:\/\/\S+/);

// proxy.json as written, with this run's listen address and HTTP backend URL; stdio backends run in
// this folder, so the config's relative paths mean what they say.
const config = JSON.parse(readFileSync(join(here, 'proxy.json'), 'utf8'));
if (!values.stdio) {
  config.listen = { ...config.listen, port, ...(values.host === undefined ? {} : { host: values.host }) };
}
for (const item of config.backends) {
  if (item.target.http !== undefined) item.target.http = backendUrl;
  if (item.target.stdio !== undefined) item.target.stdio.cwd = here;
}
const scratch = mkdtempSync(join(tmpdir(), 'snodo-proxy-example-'));
const configPath = join(scratch, 'proxy.json');
writeFileSync(configPath, JSON.stringify(config));

const proxy = spawn(process.execPath, [bin, '--config', configPath, ...(values.stdio ? ['--stdio'] : [])], {
  stdio: [values.stdio ? 'inherit' : 'ignore', 'inherit', 'pipe'],
});
if (values.stdio) proxy.stderr?.pipe(process.stderr);

let stopping = false;
function stop(code = 0): void {
  if (stopping) return;
  stopping = true;
  const done = () => {
    rmSync(scratch, { recursive: true, force: true });
    backend.once('exit', () => process.exit(code));
    backend.kill('SIGTERM');
  };
  if (proxy.exitCode !== null || proxy.signalCode !== null) done();
  else {
    proxy.once('exit', done);
    proxy.kill('SIGTERM');
  }
}
process.once('SIGINT', () => stop());
process.once('SIGTERM', () => stop());
// With --stdio the proxy ends when its input ends; the backend goes with it.
proxy.once('exit', (code) => stop(code ?? 1));

if (!values.stdio) {
  const [, url] = await waitFor(proxy, proxy.stderr as Readable, /listening on (http:\/\/\S+)/);
  if (values.check) {
    try {
      const client = await connect({ http: url as string });
      const tools = await client.allTools();
      console.log(`${tools.length} tools through ${url}: ${tools.map((t) => t.name).join(', ')}`);
      for (const name of ['local.echo', 'w.echo']) {
        const result = await client.callTool(name, { text: `hello via ${name}` });
        console.log(`${name} -> ${(result.content[0] as { text: string }).text}`);
      }
      await client.close();
      stop(0);
    } catch (error) {
      console.error(error);
      stop(1);
    }
  } else {
    console.log(url);
    console.error(`proxy-example: serving ${url} (local.* over stdio, w.* over HTTP); SIGINT to stop`);
  }
}
