import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../src/processes.js';
import { legacySession } from './helpers/mcp.js';

const MAIN = join(import.meta.dirname, '..', 'dist', 'main.js');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('node dist/main.js --port N', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`starts Redis, two instances and HAProxy with one command, and ${signal} stops all of them`, async () => {
      const port = await freePort();
      const child = spawn(process.execPath, [MAIN, '--port', String(port)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
        exited.then((code) => reject(new Error(`main exited (${code}): ${stderr}`)));
      });
      expect(url).toBe(`http://127.0.0.1:${port}/mcp`);
      const pids = [...stderr.matchAll(/pid (\d+)/g)].map((match) => Number(match[1]));
      expect(stderr).toMatch(
        /^cluster: redis pid \d+ port \d+, instance-1 pid \d+ port \d+, instance-2 pid \d+ port \d+, haproxy pid \d+ port \d+/m,
      );

      const session = await legacySession(url, '2025-11-25');
      const call = await session.call('tools/call', { name: 'echo', arguments: { text: 'hi' } });
      expect(call.status).toBe(200);
      expect(new Set([session.init.instance, call.instance])).toEqual(new Set(['instance-1', 'instance-2']));

      child.kill(signal);
      expect(await exited).toBe(0);
      expect(pids.filter(alive)).toEqual([]);
      expect(await accepts(port)).toBe(false);
    });
  }

  for (const args of [['--instances', '9', '--port', '4000'], ['--port', '0'], []]) {
    it(`refuses ${args.join(' ') || 'no arguments'} with its usage`, async () => {
      const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /give --port N \(1 to 65535\) and optionally --instances K \(1 to 8\)\nusage: main.js --port N/,
      );
    });
  }
});
