import { describe, expect, it } from 'vitest';
import { createServer, dispatch } from '../src/index.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } },
};

describe('every method through one pipeline: a throwing application callback', () => {
  it('initialize with an instructions function that throws answers -32603 and reports to onError (was: dispatch rejected)', async () => {
    const failure = new Error('instructions broke');
    const reported: { error: unknown; method: string }[] = [];
    const runtime = createServer({
      name: 's',
      version: '1',
      instructions: () => {
        throw failure;
      },
      onError: (error, info) => reported.push({ error, method: info.method }),
    });
    const outcome = await dispatch(runtime, initialize);
    expect(outcome).toMatchObject({ type: 'response', message: { id: 1, error: { code: -32603 } } });
    expect(reported).toEqual([{ error: failure, method: 'initialize' }]);
  });

  it('server/discover with the same throwing instructions answers -32603 too, reported once', async () => {
    const reported: string[] = [];
    const runtime = createServer({
      name: 's',
      version: '1',
      instructions: () => {
        throw new Error('broke');
      },
      onError: (_error, info) => reported.push(info.method),
    });
    const outcome = await dispatch(runtime, {
      jsonrpc: '2.0',
      id: 2,
      method: 'server/discover',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    expect(outcome).toMatchObject({ type: 'response', message: { id: 2, error: { code: -32603 } } });
    expect(reported).toEqual(['server/discover']);
  });

  it('an onError that throws does not change the answer', async () => {
    const runtime = createServer({
      name: 's',
      version: '1',
      instructions: () => {
        throw new Error('broke');
      },
      onError: () => {
        throw new Error('the hook broke too');
      },
    });
    const outcome = await dispatch(runtime, initialize);
    expect(outcome).toMatchObject({ type: 'response', message: { error: { code: -32603 } } });
  });

  it('refuses an onError that is not a function', () => {
    expect(() => createServer({ name: 's', version: '1', onError: 'log' as never })).toThrow(
      /onError must be a function/,
    );
  });
});

describe('dispatch answers with a promise whatever happens', () => {
  it('a throw while routing (here a context getter) rejects its promise; dispatch itself never throws', async () => {
    const runtime = createServer({ name: 's', version: '1' });
    const failure = new Error('context broke');
    const context = {
      get session(): undefined {
        throw failure;
      },
    };
    let answer: Promise<unknown> | undefined;
    expect(() => {
      answer = dispatch(runtime, initialize, context);
    }).not.toThrow();
    await expect(answer).rejects.toBe(failure);
  });
});
