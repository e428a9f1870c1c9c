import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import * as client from '../src/index.js';

describe('package surface', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(client).sort()).toEqual([
      'CLIENT_ERRORS',
      'CLIENT_VERSION',
      'Client',
      'DEFAULT_CALL_TIMEOUT',
      'DEFAULT_CLIENT_SUBSCRIPTION_QUEUE',
      'DEFAULT_EXIT_TIMEOUT',
      'DEFAULT_HTTP_CONNECTIONS',
      'DEFAULT_MAX_CACHE_ENTRIES',
      'DEFAULT_MAX_INPUT_ROUNDS',
      'DEFAULT_MAX_LINE_BYTES',
      'DEFAULT_MAX_MESSAGE_BYTES',
      'DEFAULT_MAX_PAGES',
      'DEFAULT_MAX_TASK_POLL_INTERVAL',
      'DEFAULT_PROBE_TIMEOUT',
      'DEFAULT_TASK_POLL_INTERVAL',
      'DEFAULT_TERM_TIMEOUT',
      'DirectTransport',
      'HttpTransport',
      'OAuthClient',
      'ProtocolError',
      'SnodoError',
      'StdioTransport',
      'Subscription',
      'TaskClient',
      'TimeoutError',
      'TransportError',
      'challengeParams',
      'connect',
      'encodeHeaderValue',
      'paramHeaderValues',
      'toolHeaders',
    ]);
  });

  it('documents every error code in the README, and the README example stays under 30 lines', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    for (const code of Object.keys(client.CLIENT_ERRORS)) expect(readme).toContain(`\`${code}\``);
    const [example = '', stdio = ''] = readme
      .split('```ts')
      .slice(1, 3)
      .map((block) => block.split('```')[0]);
    expect(example.trim().split('\n').length).toBeLessThan(30);
    for (const kind of ['http:', 'direct:']) expect(example).toContain(kind);
    for (const kind of ['stdio:', 'transport:']) expect(stdio).toContain(kind);
  });

  it('keeps CLIENT_VERSION equal to the package version', async () => {
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    expect(client.CLIENT_VERSION).toBe(pkg.version);
  });
});

describe('examples/client-transports', () => {
  it('calls echo over stdio, HTTP and in-process and prints each negotiated revision', async () => {
    const { execFile } = await import('node:child_process');
    const { TRANSPORTS_MAIN } = await import('./helpers/paths.js');
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [TRANSPORTS_MAIN], (error, out) => (error ? reject(error) : resolve(out)));
    });
    expect(stdout.trim().split('\n')).toEqual([
      'stdio      2026-07-28  hello over stdio',
      'http       2026-07-28  hello over http',
      'in-process 2026-07-28  hello over in-process',
      'custom     2026-07-28  hello over custom',
    ]);
  });
});
