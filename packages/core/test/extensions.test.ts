import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index.js';
import { initialize, legacy, modern } from './helpers/demo.js';
import { featureServer } from './helpers/features.js';
import { run } from './helpers/run.js';
import { expectResponse } from './helpers/wire-schema.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const { runtime } = featureServer();

describe('extensions', () => {
  it('are advertised in capabilities.extensions with their settings', async () => {
    const { response } = await run(runtime, modern('server/discover'));
    expectResponse('2026-07-28', 'server/discover', response);
    expect(response.result.capabilities.extensions).toEqual({ 'dev.snodo/health': { detail: 'aggregate' } });
  });

  it('route their methods only when the request declares the extension too', async () => {
    const declared = await run(
      runtime,
      modern('health/check', {}, { [CAPS]: { extensions: { 'dev.snodo/health': {} } } }),
    );
    expect(declared.response.result).toMatchObject({ status: 'up', resultType: 'complete' });
    const undeclared = await run(runtime, modern('health/check'));
    expect(undeclared.response.error).toMatchObject({
      code: -32601,
      data: { requiresExtension: 'dev.snodo/health' },
    });
    const other = await run(
      runtime,
      modern('health/check', {}, { [CAPS]: { extensions: { 'dev.snodo/other': {} } } }),
    );
    expect(other.response.error.code).toBe(-32601);
  });

  it('on the initialize-based revisions, through the negotiated capabilities', async () => {
    const init = await run(runtime, initialize('2025-06-18', { extensions: { 'dev.snodo/health': {} } }));
    const result = await run(runtime, legacy('health/check', {}), { session: (init.outcome as any).session });
    expect(result.response.result).toEqual({ status: 'up' });
    const plain = await run(runtime, initialize('2025-06-18'));
    const refused = await run(runtime, legacy('health/check', {}), {
      session: (plain.outcome as any).session,
    });
    expect(refused.response.error.code).toBe(-32601);
  });

  it('are checked at definition: the prefix is required and core methods cannot be taken', () => {
    expect(() => createServer({ name: 's', version: '1', extensions: { health: {} } })).toThrow(
      /prefix is required/,
    );
    expect(() =>
      createServer({
        name: 's',
        version: '1',
        extensions: { 'dev.x/y': { methods: { 'tools/list': () => ({}) } } },
      }),
    ).toThrow(/core MCP method/);
  });
});
