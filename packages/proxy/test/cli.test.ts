import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@snodo/client';
import { describe, expect, it } from 'vitest';
import { parseConfig, proxyOptions } from '../src/cli/config.js';
import { rpcError, withPidFile } from './helpers/proxy.js';
import { DEMO_MAIN, demoStdio, waitForOutput } from './helpers/servers.js';

const BIN = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
const CONSOLE_ON_SIGNAL = join(import.meta.dirname, 'fixtures', 'console-on-signal.mjs');
const CONSOLE_ON_SPAWN = join(import.meta.dirname, 'fixtures', 'console-on-spawn.mjs');
const TOKEN = 'frontend-token-0123456789';

function tempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'snodo-proxy-cli-')), name);
  writeFileSync(path, content);
  return path;
}

/** Runs the command to its exit: code and stderr. */
function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

/** A config with one backend: the demo server over stdio. */
function demoOverStdioConfig(): string {
  return tempFile('stdio.json', JSON.stringify({ backends: [{ id: 'demo', target: demoStdio() }] }));
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('snodo-proxy --config', () => {
  it('validates the config with zod and reports every error with its path', async () => {
    const path = tempFile(
      'bad.json',
      JSON.stringify({
        listen: { port: 70_000, path: 'mcp' },
        backends: [
          { id: '1bad', target: { http: 'ftp://x' } },
          { id: 'two', target: {} },
          { id: 'two', target: { stdio: { command: '' } }, prefix: 'a b' },
          { id: 'four', target: { http: 'http://127.0.0.1:1/mcp', stdio: { command: 'x' } } },
        ],
        maxBackends: 0,
        healthIntervalMs: 1.5,
        frontendTokens: ['short'],
        separator: '/',
        unknown: true,
      }),
    );
    const { code, stderr } = await run(['--config', path]);
    expect(code).toBe(2);
    const lines = stderr.split('\n').map((line) => line.trim());
    expect(lines[0]).toBe(`snodo-proxy: invalid config ${path}:`);
    for (const expected of [
      '(top level): Unrecognized key: "unknown"',
      'listen.port: Too big: expected number to be <=65535',
      'listen.path: must start with /',
      'backends.0.id: must match ^[A-Za-z][A-Za-z0-9_-]*$',
      'backends.0.target.http: must be an http: or https: URL',
      'backends.1.target: needs exactly one of stdio or http',
      'backends.2.target.stdio.command: must be a non-empty string',
      'backends.2.prefix: must be at most 63 of the characters A-Z a-z 0-9 _ . -',
      'backends.3.target: needs exactly one of stdio or http',
      'maxBackends: Too small: expected number to be >0',
      'healthIntervalMs: Invalid input: expected int, received number',
      'frontendTokens.0: must be at least 16 characters',
      'separator: must be 1 to 8 of the characters A-Z a-z 0-9 _ . -',
    ]) {
      expect(lines).toContain(expected);
    }
  });

  it('reports a duplicate backend id at its path, and defaults listen to 127.0.0.1:4000/mcp', () => {
    const duplicate = parseConfig({
      backends: [0, 1].map(() => ({ id: 'same', target: { http: 'http://127.0.0.1:1/mcp' } })),
    });
    expect(duplicate).toEqual({ problems: ['backends.1.id: duplicate id "same"'] });
    const sessions = parseConfig({
      backends: [
        { id: 'a', target: { http: 'http://127.0.0.1:1/mcp' }, sessionMode: 'per-user', maxSessions: 0 },
        { id: 'b', target: { http: 'http://127.0.0.1:1/mcp' }, sessionMode: 'shared', maxSessions: 4 },
      ],
      maxBackendSessions: 0,
      backendSessionIdleMs: 2 ** 31,
    });
    expect('problems' in sessions && sessions.problems).toEqual([
      'backends.0.sessionMode: Invalid option: expected one of "per-principal"|"shared"',
      'backends.0.maxSessions: Too small: expected number to be >0',
      'maxBackendSessions: Too small: expected number to be >0',
      'backendSessionIdleMs: Too big: expected number to be <=2147483647',
    ]);
    const tasks = parseConfig({
      backends: [
        { id: 'a', target: { http: 'http://127.0.0.1:1/mcp' }, taskAfterMs: true },
        { id: 'b', target: { http: 'http://127.0.0.1:1/mcp' }, taskAfterMs: false },
      ],
      taskAfterMs: -1,
    });
    expect('problems' in tasks && tasks.problems).toHaveLength(2);
    expect('problems' in tasks && tasks.problems.map((line) => line.split(':')[0])).toEqual([
      'backends.0.taskAfterMs',
      'taskAfterMs',
    ]);
    const valid = parseConfig({
      backends: [{ id: 'b', target: { http: 'http://127.0.0.1:1/mcp' }, taskAfterMs: false }],
      taskAfterMs: 0,
    });
    if (!('config' in valid)) throw new Error(valid.problems.join('\n'));
    const options = proxyOptions(valid.config, '/tmp/proxy.json');
    expect(options.taskAfterMs).toBe(0);
    expect(options.backends?.[0]?.taskAfterMs).toBe(false);
    const minimal = parseConfig({});
    expect('config' in minimal && minimal.config.listen).toEqual({
      host: '127.0.0.1',
      port: 4000,
      path: '/mcp',
    });
  });

  it('refuses a missing option, a missing file and a file that is not JSON', async () => {
    expect(await run([])).toMatchObject({ code: 2, stderr: expect.stringContaining('--config is required') });
    expect(await run(['--config', '/nonexistent/proxy.json'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('cannot read /nonexistent/proxy.json'),
    });
    expect(await run(['--config', tempFile('x.json', '{ nope')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('cannot read'),
    });
    expect(await run(['--bogus'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--bogus'"),
    });
  });

  it('serves HTTP with frontend tokens, logs health changes to stderr, and shuts down cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snodo-proxy-run-'));
    const pidFile = join(dir, 'backend.pid');
    const backend = withPidFile(DEMO_MAIN, ['--stdio'], pidFile) as {
      stdio: { command: string; args: string[]; env: Record<string, string> };
    };
    const path = join(dir, 'proxy.json');
    writeFileSync(
      path,
      JSON.stringify({
        listen: { port: 0 },
        backends: [
          {
            id: 'demo',
            target: {
              stdio: { command: backend.stdio.command, args: backend.stdio.args, env: { PID_FILE: pidFile } },
            },
          },
        ],
        frontendTokens: [TOKEN],
      }),
    );
    const child = spawn(process.execPath, [BIN, '--config', path], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    try {
      const [, url] = await waitForOutput(child, 'stderr', /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      expect(stderr).toContain('snodo-proxy: backend demo up');
      const client = await connect({ http: url as string }, { authorization: () => TOKEN });
      expect(await client.callTool('demo.echo', { text: 'through the command' })).toMatchObject({
        content: [{ type: 'text', text: 'through the command' }],
      });
      await client.close();
      const discover = (authorization?: string) =>
        fetch(url as string, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'server/discover',
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'server/discover',
            params: {
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
        });
      expect((await discover()).status).toBe(401);
      expect((await discover('Bearer wrong-token-0123456789')).status).toBe(401);
      expect((await discover(`Bearer ${TOKEN}`)).status).toBe(200);
      await expect(connect({ http: url as string })).rejects.toThrow(/Unauthorized/);
      const backendPid = Number(readFileSync(pidFile, 'utf8'));
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(stderr).toContain('snodo-proxy: SIGTERM: shutting down');
      // The backend it spawned is gone too.
      expect(() => process.kill(backendPid, 0)).toThrow(/ESRCH/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('serves stdio with --stdio, and ends when its input ends', async () => {
    const path = demoOverStdioConfig();
    const stderr: string[] = [];
    const client = await connect(
      { stdio: { command: process.execPath, args: [BIN, '--config', path, '--stdio'] } },
      { onStderr: (text) => stderr.push(text) },
    );
    expect(await client.callTool('demo.echo', { text: 'over stdio' })).toMatchObject({
      content: [{ text: 'over stdio' }],
    });
    const transport = client.transport as { pid?: number };
    const pid = transport.pid as number;
    await client.close();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    expect(stderr.join('')).toContain('snodo-proxy: end of input: shutting down');
  });

  it('with --stdio, console output while the backends start (before serving) goes to stderr too', async () => {
    const path = demoOverStdioConfig();
    let stderr = '';
    const warnings: string[] = [];
    const client = await connect(
      {
        stdio: {
          command: process.execPath,
          args: ['--import', CONSOLE_ON_SPAWN, BIN, '--config', path, '--stdio'],
        },
      },
      {
        onStderr: (text) => {
          stderr += text;
        },
        // A stdout line that is not JSON-RPC is skipped with a warning.
        onWarning: (message) => warnings.push(message),
      },
    );
    try {
      // The backend was spawned (and the line logged) before the proxy could answer this.
      expect(await client.callTool('demo.echo', { text: 'serving' })).toMatchObject({
        content: [{ text: 'serving' }],
      });
      expect(warnings).toEqual([]);
      expect(stderr).toContain('stray at start-up\n');
    } finally {
      await client.close();
    }
  });

  it('with --stdio, console output in the proxy process goes to stderr: stdout carries protocol messages only', async () => {
    const path = demoOverStdioConfig();
    let stderr = '';
    const stderrChunk = new EventEmitter();
    const warnings: string[] = [];
    const client = await connect(
      {
        stdio: {
          command: process.execPath,
          args: ['--import', CONSOLE_ON_SIGNAL, BIN, '--config', path, '--stdio'],
        },
      },
      {
        onStderr: (text) => {
          stderr += text;
          stderrChunk.emit('data');
        },
        // A stdout line that is not JSON-RPC is skipped with a warning.
        onWarning: (message) => warnings.push(message),
      },
    );
    try {
      expect(await client.callTool('demo.echo', { text: 'serving' })).toMatchObject({
        content: [{ text: 'serving' }],
      });
      process.kill((client.transport as { pid?: number }).pid as number, 'SIGUSR2');
      while (!stderr.includes('console-on-signal: logged')) await once(stderrChunk, 'data');
      // Anything written to stdout by then comes before this response on the same pipe.
      expect(await client.callTool('demo.echo', { text: 'after' })).toMatchObject({
        content: [{ text: 'after' }],
      });
      expect(warnings).toEqual([]);
      expect(stderr).toContain('stray log\nstray info\n');
      expect(stderr).toContain('│ (index) │ stray');
    } finally {
      await client.close();
    }
  });
});

describe('snodo-proxy --config: options of the frontends and the backend clients', () => {
  const LINE_LIMIT = 50_000;
  const BODY_LIMIT = 200_000;

  it('refuses a passed-through option the command sets itself, at its path, and checks the client bounds', () => {
    const parsed = parseConfig({
      backends: [{ id: 'a', target: demoStdio(), clientOptions: { maxLineBytes: 0, maxMessageBytes: 1.5 } }],
      http: { port: 1, cors: true, maxBodyBytes: 2_000 },
      stdio: { input: 'x', maxLineBytes: 10 },
    });
    expect('problems' in parsed && parsed.problems).toEqual([
      'backends.0.clientOptions.maxMessageBytes: Invalid input: expected int, received number',
      'backends.0.clientOptions.maxLineBytes: Too small: expected number to be >0',
      'http.port: is set by listen.port',
      'http.cors: is set by corsOrigins',
      'stdio.input: is set by the command (stdin)',
    ]);
    // Only JSON scalars: a function or an object (an executor, a stream) cannot come from a file.
    expect(parseConfig({ stdio: { nested: { no: 1 } } })).toEqual({
      problems: ['stdio.nested: Invalid input'],
    });
  });

  it("HTTP: the listener takes the config's bounds (413 past maxBodyBytes), and a backend answer past the client's maxLineBytes fails that call alone", async () => {
    const path = tempFile(
      'bounds.json',
      JSON.stringify({
        listen: { port: 0 },
        backends: [{ id: 'demo', target: demoStdio(), clientOptions: { maxLineBytes: LINE_LIMIT } }],
        http: { maxBodyBytes: BODY_LIMIT },
      }),
    );
    const child = spawn(process.execPath, [BIN, '--config', path], { stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const [, url] = await waitForOutput(child, 'stderr', /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
      const oversized = await fetch(url as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'ping',
          params: { pad: 'x'.repeat(BODY_LIMIT) },
        }),
      });
      expect(oversized.status).toBe(413);
      const client = await connect({ http: url as string });
      const error = await rpcError(client.callTool('demo.echo', { text: 'x'.repeat(2 * LINE_LIMIT) }));
      expect(error).toMatchObject({ data: { reason: 'response_too_large', limit: LINE_LIMIT } });
      expect((await client.callTool('demo.echo', { text: 'small' })).content).toEqual([
        { type: 'text', text: 'small' },
      ]);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it("stdio: serve takes the config's maxLineBytes (a longer line is -32600 with data.maxLineBytes)", async () => {
    const path = tempFile(
      'stdio-bounds.json',
      JSON.stringify({ backends: [{ id: 'demo', target: demoStdio() }], stdio: { maxLineBytes: 1_000 } }),
    );
    const child = spawn(process.execPath, [BIN, '--config', path, '--stdio'], {
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    try {
      const answer = waitForOutput(child, 'stdout', /^(\{.*\})\n/m);
      child.stdin?.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2_000) } })}\n`,
      );
      const [, line] = await answer;
      expect(JSON.parse(line as string)).toMatchObject({
        id: null,
        error: { code: -32600, data: { maxLineBytes: 1_000 } },
      });
    } finally {
      child.stdin?.end();
      await exited(child);
    }
  });

  it('an option listen() or serve() refuses stops the command: exit code 2, the known options named', async () => {
    const backends = [{ id: 'demo', target: demoStdio() }];
    const http = await run([
      '--config',
      tempFile('http.json', JSON.stringify({ listen: { port: 0 }, backends, http: { maxBodyBytez: 5 } })),
    ]);
    expect(http.code).toBe(2);
    expect(http.stderr).toMatch(/invalid config .*http\.json: http: .*maxBodyBytez/);
    expect(http.stderr).toContain('maxBodyBytes');
    const stdio = await run([
      '--config',
      tempFile('stdio.json', JSON.stringify({ backends, stdio: { maxLineBytes: -1 } })),
      '--stdio',
    ]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toMatch(/invalid config .*stdio\.json: stdio: .*maxLineBytes/);
  });
});
