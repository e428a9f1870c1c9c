import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientRequestChannel } from '../src/index.js';
import { ClientRequestError, createServer } from '../src/index.js';
import { initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { ELICIT, featureServer } from './helpers/features.js';
import { run } from './helpers/run.js';
import { expectResponse } from './helpers/wire-schema.js';

const { runtime } = featureServer();
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

async function first(name: string, meta: Record<string, unknown> = ELICIT, auth?: { principal: string }) {
  const { response } = await run(
    runtime,
    modern('tools/call', { name, arguments: {} }, meta),
    auth ? { auth } : {},
  );
  return response;
}

async function retry(
  name: string,
  extra: Record<string, unknown>,
  meta: Record<string, unknown> = ELICIT,
  auth?: { principal: string },
) {
  const { response } = await run(
    runtime,
    modern('tools/call', { name, arguments: {}, ...extra }, meta),
    auth ? { auth } : {},
  );
  return response;
}

describe('MRTR on 2026-07-28', () => {
  afterEach(() => vi.useRealTimers());

  it('asks with input_required, then completes on a retry with a new id carrying the answer', async () => {
    const asked = await first('ask');
    expectResponse(MODERN, 'tools/call', asked);
    expect(asked.result.resultType).toBe('input_required');
    expect(asked.result.inputRequests).toEqual({
      elicit: {
        method: 'elicitation/create',
        params: {
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    });
    expect(asked.result.ttlMs).toBeUndefined();
    expect(typeof asked.result.requestState).toBe('string');
    const done = await retry('ask', {
      inputResponses: { elicit: accept({ name: 'Ada' }) },
      requestState: asked.result.requestState,
    });
    expectResponse(MODERN, 'tools/call', done);
    expect(done.id).not.toBe(asked.id);
    expect(done.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
  });

  it('takes two rounds, carrying the first answer and the handler state in requestState', async () => {
    const round1 = await first('interview');
    expect(Object.keys(round1.result.inputRequests)).toEqual(['name']);
    const round2 = await retry('interview', {
      inputResponses: { name: accept({ name: 'Ada' }) },
      requestState: round1.result.requestState,
    });
    expectResponse(MODERN, 'tools/call', round2);
    expect(round2.result.resultType).toBe('input_required');
    expect(Object.keys(round2.result.inputRequests)).toEqual(['colour']);
    const done = await retry('interview', {
      inputResponses: { colour: accept({ colour: 'green' }) },
      requestState: round2.result.requestState,
    });
    expect(done.result.content[0].text).toBe('Ada likes green (step 2)');
  });

  it('a retry without the needed answer gets a new input_required, and unknown extra answers are ignored', async () => {
    const asked = await first('ask');
    const again = await retry('ask', {
      inputResponses: { other: accept({}) },
      requestState: asked.result.requestState,
    });
    expect(again.result.resultType).toBe('input_required');
    expect(Object.keys(again.result.inputRequests)).toEqual(['elicit']);
    const done = await retry('ask', {
      inputResponses: { elicit: accept({ name: 'Bo' }), stray: { action: 'decline' } },
      requestState: again.result.requestState,
    });
    expect(done.result.content[0].text).toBe('Hello, Bo!');
  });

  it('refuses a tampered requestState', async () => {
    const asked = await first('ask');
    const state: string = asked.result.requestState;
    const [body, mac] = state.split('.') as [string, string];
    const flipped = `${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.at(-1)}.${mac}`;
    for (const requestState of [flipped, `${body}.${mac.slice(1)}x`, 'garbage', 42]) {
      const refused = await retry('ask', {
        inputResponses: { elicit: accept({ name: 'Mallory' }) },
        requestState,
      });
      expectResponse(MODERN, 'tools/call', refused);
      expect(refused.error.code).toBe(-32602);
      expect(refused.error.message).toMatch(/Invalid requestState/);
    }
  });

  it('refuses a requestState replayed by another principal, for another tool or other arguments', async () => {
    const asked = await first('ask', ELICIT, { principal: 'alice' });
    const requestState = asked.result.requestState;
    const answer = { inputResponses: { elicit: accept({ name: 'x' }) }, requestState };
    expect((await retry('ask', answer, ELICIT, { principal: 'alice' })).result.content[0].text).toBe(
      'Hello, x!',
    );
    const byBob = await retry('ask', answer, ELICIT, { principal: 'bob' });
    expect(byBob.error.message).toMatch(/different principal/);
    const anonymous = await retry('ask', answer);
    expect(anonymous.error.message).toMatch(/different principal/);
    const otherTool = await retry('interview', answer, ELICIT, { principal: 'alice' });
    expect(otherTool.error.message).toMatch(/different params/);
  });

  it('refuses an expired requestState', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const asked = await first('ask');
    vi.setSystemTime(Date.now() + 600_001);
    const refused = await retry('ask', {
      inputResponses: { elicit: accept({ name: 'late' }) },
      requestState: asked.result.requestState,
    });
    expect(refused.error.message).toMatch(/expired/);
  });

  it('refuses a state signed with another server secret', async () => {
    const other = featureServer({ mrtr: { secret: 'another-secret-that-is-32-bytes-long!' } }).runtime;
    const asked = (await run(other, modern('tools/call', { name: 'ask', arguments: {} }, ELICIT))).response;
    const refused = await retry('ask', {
      inputResponses: { elicit: accept({ name: 'x' }) },
      requestState: asked.result.requestState,
    });
    expect(refused.error.message).toMatch(/integrity/);
  });

  it('never asks for a capability the request did not declare: -32021', async () => {
    const refused = await first('ask', {});
    expectResponse(MODERN, 'tools/call', refused);
    expect(refused.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
    const both = await first('everything-at-once', { [CAPS]: { sampling: {} } });
    expect(both.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { roots: {} } } });
    const urlOnly = await first('ask', { [CAPS]: { elicitation: { url: {} } } });
    expect(urlOnly.error.data.requiredCapabilities).toEqual({ elicitation: { form: {} } });
  });

  it('asks several things in one round (sampling and roots)', async () => {
    const meta = { [CAPS]: { sampling: {}, roots: {} } };
    const asked = await first('everything-at-once', meta);
    expect(Object.keys(asked.result.inputRequests).sort()).toEqual(['roots', 'sample']);
    expect(asked.result.inputRequests.roots).toEqual({ method: 'roots/list' });
    const done = await retry(
      'everything-at-once',
      {
        inputResponses: {
          sample: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' },
          roots: { roots: [{ uri: 'file:///a' }] },
        },
        requestState: asked.result.requestState,
      },
      meta,
    );
    expect(done.result.content[0].text).toBe('hi / 1 roots');
  });

  it('supports a state-only input_required (load shedding) and an immediate retry', async () => {
    const busy = await first('busy', {});
    expectResponse(MODERN, 'tools/call', busy);
    expect(busy.result.resultType).toBe('input_required');
    expect(busy.result.inputRequests).toBeUndefined();
    const done = await retry('busy', { requestState: busy.result.requestState }, {});
    expect(done.result.content[0].text).toBe('done now');
  });

  it('works on prompts/get and resources/read, and is never returned by other methods', async () => {
    const prompt = (await run(runtime, modern('prompts/get', { name: 'confirm' }, ELICIT))).response;
    expectResponse(MODERN, 'prompts/get', prompt);
    expect(prompt.result.resultType).toBe('input_required');
    const read = (await run(runtime, modern('resources/read', { uri: 'demo://secret' }, ELICIT))).response;
    expectResponse(MODERN, 'resources/read', read);
    expect(read.result.resultType).toBe('input_required');
    const readDone = (
      await run(
        runtime,
        modern(
          'resources/read',
          {
            uri: 'demo://secret',
            inputResponses: { elicit: accept({ pw: 'pw1' }) },
            requestState: read.result.requestState,
          },
          ELICIT,
        ),
      )
    ).response;
    expect(readDone.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    const completing = createServer({
      name: 'c',
      version: '1',
      prompts: [
        {
          name: 'p',
          get: () => 'x',
          complete: { a: async () => [] },
          arguments: [{ name: 'a' }],
        },
      ],
    });
    const c = (
      await run(
        completing,
        modern(
          'completion/complete',
          { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } },
          ELICIT,
        ),
      )
    ).response;
    expect(c.result.resultType).toBe('complete');
  });

  it('bounds the number of rounds', async () => {
    const looping = createServer({
      name: 'l',
      version: '1',
      mrtr: { maxRounds: 2 },
      tools: [{ name: 'loop', handler: (_a, ctx) => ctx.retryLater(((ctx.state as number) ?? 0) + 1) }],
    });
    let state: unknown;
    const codes: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const { response } = await run(
        looping,
        modern('tools/call', { name: 'loop', ...(state ? { requestState: state } : {}) }),
      );
      codes.push(response.result?.resultType ?? response.error.code);
      state = response.result?.requestState;
    }
    expect(codes).toEqual(['input_required', 'input_required', -32600]);
  });
});

describe('the same handler API on the initialize-based revisions', () => {
  async function session(version: string, capabilities: Record<string, unknown>) {
    const { outcome } = await run(runtime, initialize(version, capabilities));
    return (outcome as any).session;
  }

  it('sends server-initiated requests through the transport channel', async () => {
    const sent: unknown[] = [];
    const channel: ClientRequestChannel = {
      async request(method, params, options) {
        sent.push({ method, params, related: options.relatedRequestId });
        return { action: 'accept', content: { name: 'Legacy' } };
      },
    };
    const request = legacy('tools/call', { name: 'ask', arguments: {} });
    const { response } = await run(runtime, request, {
      session: await session('2025-06-18', { elicitation: {} }),
      channel,
    });
    expectResponse('2025-06-18', 'tools/call', response);
    expect(response.result.content[0].text).toBe('Hello, Legacy!');
    expect(sent).toEqual([
      {
        method: 'elicitation/create',
        params: expect.objectContaining({ message: 'What is your name?' }),
        related: request.id,
      },
    ]);
  });

  it('refuses a capability the session did not negotiate with -32021', async () => {
    const { response } = await run(runtime, legacy('tools/call', { name: 'ask', arguments: {} }), {
      session: await session('2025-06-18', {}),
      channel: { request: async () => ({}) },
    });
    expect(response.error.code).toBe(-32021);
  });

  it('2025-03-26 has no elicitation: refused with -32021 without reaching the channel, sampling and roots still go', async () => {
    const sent: string[] = [];
    const channel: ClientRequestChannel = {
      async request(method) {
        sent.push(method);
        if (method === 'roots/list') return { roots: [] };
        return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' };
      },
    };
    const s = await session('2025-03-26', { elicitation: {}, sampling: {}, roots: {} });
    const asked = await run(runtime, legacy('tools/call', { name: 'ask', arguments: {} }), {
      session: s,
      channel,
    });
    expect(asked.response.error).toMatchObject({
      code: -32021,
      message: 'elicitation/create does not exist in protocol revision 2025-03-26',
    });
    expect(sent).toEqual([]);
    const both = await run(runtime, legacy('tools/call', { name: 'everything-at-once', arguments: {} }), {
      session: s,
      channel,
    });
    expectResponse('2025-03-26', 'tools/call', both.response);
    expect(both.response.result.content[0].text).toBe('sampled / 0 roots');
    expect(sent.sort()).toEqual(['roots/list', 'sampling/createMessage']);
  });

  it('turns a client error answer into an isError result, and fails clearly without a channel', async () => {
    const channel: ClientRequestChannel = {
      request: async () => {
        throw new ClientRequestError(-32601, 'elicitation not supported');
      },
    };
    const s = await session('2025-06-18', { elicitation: {} });
    const failed = await run(runtime, legacy('tools/call', { name: 'ask', arguments: {} }), {
      session: s,
      channel,
    });
    expect(failed.response.result).toMatchObject({
      isError: true,
      content: [{ text: 'elicitation not supported' }],
    });
    const noChannel = await run(runtime, legacy('tools/call', { name: 'ask', arguments: {} }), {
      session: s,
    });
    expect(noChannel.response.error.message).toMatch(/cannot carry server-initiated requests/);
  });
});
