import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SnodoError } from '@snodo/core';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { createProxy, PROXY_ERRORS, ProxyError } from '../src/index.js';

const direct = { stdio: { command: process.execPath, args: ['-e', ''] } };

async function refused(options: unknown): Promise<SnodoError> {
  try {
    const proxy = await createProxy(options as api.ProxyOptions);
    await proxy.close();
  } catch (error) {
    if (SnodoError.is(error)) return error;
    throw error;
  }
  throw new Error('createProxy accepted the options');
}

describe('createProxy options are validated at start-up, naming the option and its rule', () => {
  it.each([
    ['maxBackends', 0],
    ['maxBackends', 1.5],
    ['maxCatalogItems', -1],
    ['maxCatalogItems', '10'],
    ['healthIntervalMs', 0],
    ['healthIntervalMs', 2 ** 31],
    ['reconnectDelayMs', Number.NaN],
    ['pageSize', 0],
    ['inputTimeoutMs', 0],
    ['maxParkedCalls', 0],
    ['maxInputRounds', 0],
    ['maxBackendSessions', 0],
    ['maxBackendSessions', 2.5],
    ['backendSessionIdleMs', 0],
    ['backendSessionIdleMs', 2 ** 31],
  ])('%s = %s', async (name, value) => {
    const error = await refused({ [name]: value });
    expect(error.code).toBe('SNODO_ERR_INVALID_OPTION');
    expect(SnodoError.is(error) && !ProxyError.is(error)).toBe(true);
    expect(error.message).toMatch(
      new RegExp(
        `^Invalid option: ${name} must be (a positive integer|an integer number of milliseconds from 1 to 2147483647), got`,
      ),
    );
  });

  it.each([
    [{ separator: '' }, /separator must be 1 to 8 of the characters/],
    [{ separator: '/' }, /separator must be 1 to 8/],
    [{ separator: '123456789' }, /separator must be 1 to 8/],
    [{ authorization: 'yes' }, /authorization must be an object/],
    [{ authorization: { canList: true } }, /authorization.canList must be a function/],
    [{ onHealthChange: 1 }, /onHealthChange must be a function/],
    [{ backends: {} }, /backends must be an array/],
    [{ backends: [null] }, /backends\[0\] must be an object/],
    [
      { backends: [{ id: '9lives', target: direct }] },
      /backends\[0\]\.id must match \^\[A-Za-z\]\[A-Za-z0-9_-\]\*\$/,
    ],
    [{ backends: [{ id: 'a.b', target: direct }] }, /backends\[0\]\.id must match/],
    [{ backends: [{ id: 'x'.repeat(65), target: direct }] }, /at most 64 characters/],
    [{ backends: [{ id: 'a' }] }, /backends\[0\]\.target must be an object/],
    [
      { backends: [{ id: 'a', target: { http: 'x', stdio: {} } }] },
      /exactly one of http, stdio, direct or transport/,
    ],
    [
      { backends: [{ id: 'a', target: { http: 'ftp://h/mcp' } }] },
      /backends\[0\]\.target\.http must be an http: or https: URL/,
    ],
    [
      { backends: [{ id: 'a', target: { stdio: { command: '' } } }] },
      /target\.stdio\.command must be a non-empty string/,
    ],
    [
      { backends: [{ id: 'a', target: { stdio: { command: 'x', args: [1] } } }] },
      /target\.stdio\.args must be an array of strings/,
    ],
    [
      { backends: [{ id: 'a', target: { transport: {} } }] },
      /must implement ClientTransport \(missing open\(\)\)/,
    ],
    [{ backends: [{ id: 'a', target: direct, prefix: 'a b' }] }, /backends\[0\]\.prefix must be at most 63/],
    [
      { backends: [{ id: 'a', target: direct, clientOptions: 3 }] },
      /backends\[0\]\.clientOptions must be an object/,
    ],
    [
      { backends: [{ id: 'a', target: direct, sessionMode: 'per-user' }] },
      /backends\[0\]\.sessionMode must be 'per-principal' or 'shared', got "per-user"/,
    ],
    [
      { backends: [{ id: 'a', target: direct, maxSessions: 0 }] },
      /backends\[0\]\.maxSessions must be a positive integer, got 0/,
    ],
    [
      { taskAfterMs: -1 },
      /^Invalid option: taskAfterMs must be false or an integer number of milliseconds from 0 to 2147483647, got -1$/,
    ],
    [
      { taskAfterMs: 2 ** 31 },
      /taskAfterMs must be false or an integer number of milliseconds from 0 to 2147483647, got 2147483648/,
    ],
    [{ taskAfterMs: 1.5 }, /taskAfterMs must be false or an integer/],
    [{ taskAfterMs: true }, /taskAfterMs must be false or an integer/],
    [
      { backends: [{ id: 'a', target: direct, taskAfterMs: -1 }] },
      /backends\[0\]\.taskAfterMs must be false or an integer number of milliseconds from 0 to 2147483647, got -1/,
    ],
    [{ taskManager: {} }, /taskManager must be a TaskManager \(createTaskManager\(\)\)/],
  ])('%j', async (options, message) => {
    const error = await refused(options);
    expect(error.code).toBe('SNODO_ERR_INVALID_OPTION');
    expect(error.message).toMatch(message);
  });

  it.each<number | false>([0, 2 ** 31 - 1, false])(
    'accepts taskAfterMs = %s, for the proxy and for a backend',
    async (value) => {
      const proxy = await createProxy({
        taskAfterMs: value,
        backends: [{ id: 'a', target: direct, taskAfterMs: value }],
      });
      await proxy.close();
    },
  );

  it('refuses duplicate initial ids and more initial backends than maxBackends', async () => {
    const duplicate = (await refused({
      backends: [
        { id: 'a', target: direct },
        { id: 'a', target: direct },
      ],
    })) as ProxyError;
    expect([duplicate.code, duplicate.kind, duplicate.details]).toEqual([
      'SNODO_ERR_DUPLICATE_ID',
      'duplicate_id',
      { id: 'a' },
    ]);
    const many = (await refused({
      maxBackends: 1,
      backends: [
        { id: 'a', target: direct },
        { id: 'b', target: direct },
      ],
    })) as ProxyError;
    expect([many.code, many.kind, many.details]).toEqual([
      'SNODO_ERR_BACKEND_LIMIT',
      'backend_limit',
      { limit: 1 },
    ]);
  });

  it('validates runtime options too', async () => {
    const proxy = await createProxy();
    try {
      expect(() => proxy.runtime({ authorization: { canCall: 'no' } as never })).toThrow(
        /authorization.canCall must be a function/,
      );
      expect(proxy.health()).toEqual({ status: 'up', backends: [] });
    } finally {
      await proxy.close();
    }
  });
});

describe('the error table', () => {
  it('declares each local error once, with a distinct kind; the README lists every code and kind', () => {
    const codes = Object.keys(PROXY_ERRORS) as (keyof typeof PROXY_ERRORS)[];
    expect(codes).toHaveLength(11);
    const kinds = codes.map((code) => new ProxyError(code, 'x').kind);
    expect(new Set(kinds).size).toBe(codes.length);
    for (const kind of [
      'backend_limit',
      'catalog_limit',
      'duplicate_id',
      'duplicate_name',
      'unsupported_template',
    ]) {
      expect(kinds).toContain(kind);
    }
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    for (const code of codes) {
      expect(PROXY_ERRORS[code].code).toBe(code);
      expect(readme).toContain(`| \`${code}\``);
      expect(readme).toContain(`\`${new ProxyError(code, 'x').kind}\``);
    }
  });

  it('brands ProxyError across copies and keeps SnodoError semantics', () => {
    const error = new ProxyError('SNODO_ERR_CATALOG_LIMIT', 'x', { limit: 3 });
    expect(ProxyError.is(error)).toBe(true);
    expect(ProxyError.is({ ...error })).toBe(false);
    expect(error.message).toBe('The merged catalog would exceed maxCatalogItems: x');
    expect(error.details).toEqual({ limit: 3 });
  });
});

describe('the package surface', () => {
  it('exports exactly this', () => {
    expect(Object.keys(api).sort()).toEqual([
      'BACKEND_ID',
      'DEFAULT_BACKEND_SESSION_IDLE_MS',
      'DEFAULT_HEALTH_INTERVAL_MS',
      'DEFAULT_INPUT_TIMEOUT_MS',
      'DEFAULT_MAX_BACKENDS',
      'DEFAULT_MAX_BACKEND_SESSIONS',
      'DEFAULT_MAX_CATALOG_ITEMS',
      'DEFAULT_MAX_INPUT_ROUNDS',
      'DEFAULT_MAX_PARKED_CALLS',
      'DEFAULT_PAGE_SIZE',
      'DEFAULT_RECONNECT_DELAY_MS',
      'DEFAULT_SEPARATOR',
      'PROXY_ERRORS',
      'PROXY_EXTENSION',
      'PROXY_URI_SCHEME',
      'PROXY_VERSION',
      'ProxyError',
      'TOOL_NAME',
      'createProxy',
      'exposedUri',
      'parseExposedUri',
    ]);
    expect([api.DEFAULT_MAX_BACKENDS, api.DEFAULT_MAX_CATALOG_ITEMS, api.DEFAULT_HEALTH_INTERVAL_MS]).toEqual(
      [32, 1000, 30000],
    );
    expect([api.DEFAULT_RECONNECT_DELAY_MS, api.DEFAULT_SEPARATOR]).toEqual([1000, '.']);
    expect([api.DEFAULT_MAX_BACKEND_SESSIONS, api.DEFAULT_BACKEND_SESSION_IDLE_MS]).toEqual([16, 300_000]);
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
    expect(pkg.version).toBe(api.PROXY_VERSION);
    expect(pkg.bin).toEqual({ 'snodo-proxy': './dist/cli/main.js' });
  });

  it('maps exposed URIs both ways', () => {
    expect(api.exposedUri('files', 'file:///a/b')).toBe('mcp-proxy://files/file:///a/b');
    expect(api.parseExposedUri('mcp-proxy://files/file:///a/b')).toEqual({
      id: 'files',
      original: 'file:///a/b',
    });
    expect(api.parseExposedUri('file:///a')).toBeUndefined();
    expect(api.parseExposedUri('mcp-proxy://files/')).toBeUndefined();
  });
});
