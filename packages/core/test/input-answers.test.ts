// A client's answer to an input request (elicitation, sampling, roots) is checked before the handler
// sees it, on both eras: an MRTR retry's inputResponses (2026-07-28) and a server-initiated request's
// result (initialize-based revisions, through createClientRequests). An invalid answer fails the
// request with -32602 naming the input key and the failing paths; the handler never receives it.
import { describe, expect, it } from 'vitest';
import { createClientRequests, createServer, type InputRequest, tool } from '../src/index.js';
import { initialize, legacy, MODERN, modern } from './helpers/demo.js';
import { run } from './helpers/run.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const CLIENT = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
const ALL = { [CAPS]: CLIENT };

const NAME_FORM: InputRequest = {
  method: 'elicitation/create',
  params: {
    message: 'Your name?',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  },
};
const SAMPLE: InputRequest = {
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 },
};
const ROOTS: InputRequest = { method: 'roots/list' };
const URL_ELICIT: InputRequest = {
  method: 'elicitation/create',
  params: { mode: 'url', message: 'Sign in', url: 'https://example.com/login' },
};

/** A server whose tool asks for one input and records every answer it is handed. */
function recording(request: InputRequest) {
  const received: unknown[] = [];
  const runtime = createServer({
    name: 'answers',
    version: '1.0.0',
    tools: [
      tool({
        name: 'ask',
        handler: async (_args, ctx) => {
          const answers = await ctx.input({ answer: request });
          received.push(answers.answer);
          return 'ok';
        },
      }),
    ],
  });
  return { runtime, received };
}

const INVALID: [string, InputRequest, unknown, string][] = [
  [
    'accepted content unlike requestedSchema',
    NAME_FORM,
    { action: 'accept', content: { name: 42 } },
    '/content/name',
  ],
  ['an action outside the enum', NAME_FORM, { action: 'bogus' }, '/action'],
  ['accept without content (form mode)', NAME_FORM, { action: 'accept' }, '/content'],
  [
    'a content value that is not a form value',
    NAME_FORM,
    { action: 'accept', content: { name: 'A', x: { y: 1 } } },
    '/content/x',
  ],
  ['a number instead of an ElicitResult', NAME_FORM, 12345, ''],
  ['null instead of an ElicitResult', NAME_FORM, null, ''],
  [
    'a sampling result with an unknown role',
    SAMPLE,
    { role: 'robot', content: { type: 'text', text: 'x' }, model: 'm' },
    '/role',
  ],
  [
    'a sampling result without a model',
    SAMPLE,
    { role: 'assistant', content: { type: 'text', text: 'x' } },
    '/model',
  ],
  [
    'a sampling result whose content is no content block',
    SAMPLE,
    { role: 'assistant', content: 'x', model: 'm' },
    '/content',
  ],
  ['roots that are not an array', ROOTS, { roots: 'file:///a' }, '/roots'],
  ['a root without a string uri', ROOTS, { roots: [{ uri: 'file:///a' }, { uri: 5 }] }, '/roots/1/uri'],
];

const VALID: [string, InputRequest, unknown, unknown][] = [
  ['an accepted form', NAME_FORM, { action: 'accept', content: { name: 'Ada' } }, undefined],
  [
    'a decline (content, if any, dropped)',
    NAME_FORM,
    { action: 'decline', content: { name: 'x' } },
    { action: 'decline' },
  ],
  ['a cancel', NAME_FORM, { action: 'cancel' }, undefined],
  ['an accepted URL elicitation (no content)', URL_ELICIT, { action: 'accept' }, undefined],
  [
    'a sampling result',
    SAMPLE,
    { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' },
    undefined,
  ],
  ['roots', ROOTS, { roots: [{ uri: 'file:///a', name: 'a' }] }, undefined],
];

describe('2026-07-28: inputResponses of an MRTR retry', () => {
  async function retry(request: InputRequest, answer: unknown) {
    const { runtime, received } = recording(request);
    const asked = (await run(runtime, modern('tools/call', { name: 'ask', arguments: {} }, ALL))).response;
    expect(asked.result.resultType).toBe('input_required');
    const params = {
      name: 'ask',
      arguments: {},
      inputResponses: { answer },
      requestState: asked.result.requestState,
    };
    return { response: (await run(runtime, modern('tools/call', params, ALL))).response, received };
  }

  it.each(INVALID)('refuses %s with -32602 naming the key and path', async (_what, request, answer, path) => {
    const { response, received } = await retry(request, answer);
    expect(response.error.code).toBe(-32602);
    expect(response.error.data).toMatchObject({ key: 'answer', method: request.method });
    expect(response.error.data.issues.map((i: { path: string }) => i.path)).toContain(path);
    expect(response.error.message).toContain('"answer"');
    expect(received).toEqual([]);
  });

  it.each(VALID)('hands the handler %s', async (_what, request, answer, handed) => {
    const { response, received } = await retry(request, answer);
    expect(response.result.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(received).toEqual([handed ?? answer]);
  });

  it('a fresh request carrying an invalid answer (no requestState) is refused too', async () => {
    const { runtime, received } = recording(NAME_FORM);
    const params = { name: 'ask', arguments: {}, inputResponses: { answer: 12345 } };
    const { response } = await run(runtime, modern('tools/call', params, ALL));
    expect(response.error.code).toBe(-32602);
    expect(received).toEqual([]);
  });

  it('an invalid answer under a key the handler does not ask for is ignored, like any unknown key', async () => {
    const { runtime, received } = recording(ROOTS);
    const answers = { answer: { roots: [] }, other: 12345 };
    const params = { name: 'ask', arguments: {}, inputResponses: answers };
    const { response } = await run(runtime, modern('tools/call', params, ALL));
    expect(response.result.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(received).toEqual([{ roots: [] }]);
  });

  it('reports at most 20 issues (20 of 20 bad roots, 20 of 21), the message the first five and a count', async () => {
    for (const bad of [20, 21]) {
      const roots = Array.from({ length: bad }, () => ({ uri: 1 }));
      const { response } = await retry(ROOTS, { roots });
      expect(response.error.data.issues).toHaveLength(20);
      expect(response.error.message).toMatch(new RegExp(`; and ${bad - 5} more$`));
    }
  });

  it('the MRTR request itself is the one refused: the round is over, its id answered', async () => {
    const { response } = await retry(NAME_FORM, { action: 'accept' });
    expect(response.id).toBeTypeOf('number');
    expect(response.result).toBeUndefined();
    expect(MODERN).toBe('2026-07-28');
  });
});

describe.each(['2025-11-25', '2025-06-18', '2025-03-26'])(
  '%s: the result of a server-initiated request',
  (version) => {
    /** Runs the tool with a channel whose client answers `answer` as its JSON-RPC result. */
    async function answered(request: InputRequest, answer: unknown) {
      const { runtime, received } = recording(request);
      const init = await run(runtime, initialize(version, CLIENT));
      const session = (init.outcome as { session: any }).session;
      const requests = createClientRequests((message) => {
        if ('id' in message && 'method' in message) {
          queueMicrotask(() => requests.resolve({ id: message.id, result: answer }));
        }
      });
      const { response } = await run(runtime, legacy('tools/call', { name: 'ask', arguments: {} }), {
        session,
        channel: requests.channel,
      });
      return { response, received };
    }
    // 2025-03-26 has no elicitation, and URL elicitation is 2025-11-25's.
    const asks = (request: InputRequest) =>
      request.method !== 'elicitation/create' ||
      (version !== '2025-03-26' && (request.params?.mode !== 'url' || version === '2025-11-25'));
    const invalid = INVALID.filter(([, request]) => asks(request));
    const valid = VALID.filter(([, request]) => asks(request));

    it.each(invalid)('refuses %s with -32602 naming the path', async (_what, request, answer, path) => {
      const { response, received } = await answered(request, answer);
      expect(response.error.code).toBe(-32602);
      expect(response.error.data).toMatchObject({ key: 'answer', method: request.method });
      expect(response.error.data.issues.map((i: { path: string }) => i.path)).toContain(path);
      expect(received).toEqual([]);
    });

    it.each(valid)('hands the handler %s', async (_what, request, answer, handed) => {
      const { response, received } = await answered(request, answer);
      expect(response.result.content).toEqual([{ type: 'text', text: 'ok' }]);
      expect(received).toEqual([handed ?? answer]);
    });
  },
);
