// The fixture the official conformance suite's server scenarios call (tool, resource and prompt
// names are the suite's), built on Snodo's public API only. One runtime serves both wires: the
// 2026-07-28 scenarios and the initialize-based (2025-11-25) ones.
import {
  type CallToolResult,
  type ChangeHub,
  createChangeHub,
  createServer,
  createTaskManager,
  type HandlerContext,
  prompt,
  type Runtime,
  resource,
  resourceTemplate,
  type TaskManager,
  type ToolDefinition,
} from '@snodo/core';
import { taskTools } from './tasks.js';

export const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const noArgs = { type: 'object', properties: {} };
const stringSchema = (key: string) => ({
  type: 'object',
  properties: { [key]: { type: 'string' } },
  required: [key],
});

function tools(hub: ChangeHub): ToolDefinition[] {
  const t = (
    name: string,
    description: string,
    handler: (
      args: Record<string, any>,
      ctx: HandlerContext,
    ) => CallToolResult | string | Promise<CallToolResult | string>,
    inputSchema: Record<string, unknown> = noArgs,
    extra: Partial<ToolDefinition> = {},
  ): ToolDefinition => ({ name, description, inputSchema, handler, ...extra });
  return [
    // Tools are listed by name. http-header-validation calls the first one with {} and expects
    // success, and json_schema_2020_12_tool (which {} does not satisfy) would otherwise be first.
    t('basic_ping', 'Succeeds with no arguments (listed first)', () => text('pong')),
    t('test_simple_text', 'Returns a simple text response', () =>
      text('This is a simple text response for testing.'),
    ),
    t('test_image_content', 'Returns an image', () => ({
      content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
    })),
    t('test_audio_content', 'Returns audio', () => ({
      content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
    })),
    t('test_embedded_resource', 'Returns an embedded resource', () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    })),
    t('test_multiple_content_types', 'Returns text, an image and a resource', () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    })),
    t('test_tool_with_logging', 'Logs three messages while it runs', async (_args, ctx) => {
      for (const message of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        ctx.log('info', message);
        await pause(20, ctx.signal);
      }
      return text('Tool with logging executed successfully');
    }),
    t('test_tool_with_progress', 'Reports progress 0, 50, 100', async (_args, ctx) => {
      for (const progress of [0, 50, 100]) {
        ctx.progress(progress, 100);
        await pause(20, ctx.signal);
      }
      return text('Progress tool completed');
    }),
    t('test_error_handling', 'Always fails', () => {
      throw new Error('This tool intentionally returns an error for testing');
    }),
    t(
      'test_sampling',
      'Asks the client to sample',
      async ({ prompt: question }, ctx) => {
        const answer = await ctx.sample({
          messages: [{ role: 'user', content: { type: 'text', text: String(question) } }],
          maxTokens: 100,
        });
        return text(`LLM response: ${(answer.content as { text?: string })?.text ?? ''}`);
      },
      { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    ),
    t(
      'test_elicitation',
      'Asks the user for information',
      async ({ message }, ctx) => {
        const answer = await ctx.elicit({
          message: String(message),
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        });
        return text(
          `User response: action=${String(answer.action)}, content=${JSON.stringify(answer.content ?? {})}`,
        );
      },
      { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    ),
    t('test_elicitation_sep1034_defaults', 'Elicits a form with defaults', async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', default: 'John Doe' },
            age: { type: 'integer', default: 30 },
            score: { type: 'number', default: 95.5 },
            status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
            verified: { type: 'boolean', default: true },
          },
          required: [],
        },
      });
      return text(
        `Elicitation completed: action=${String(answer.action)}, content=${JSON.stringify(answer.content ?? {})}`,
      );
    }),
    t('test_elicitation_sep1330_enums', 'Elicits every enum shape', async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              oneOf: [
                { const: 'value1', title: 'First Option' },
                { const: 'value2', title: 'Second Option' },
                { const: 'value3', title: 'Third Option' },
              ],
            },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              items: {
                anyOf: [
                  { const: 'value1', title: 'First Choice' },
                  { const: 'value2', title: 'Second Choice' },
                  { const: 'value3', title: 'Third Choice' },
                ],
              },
            },
          },
          required: [],
        },
      });
      return text(
        `Elicitation completed: action=${String(answer.action)}, content=${JSON.stringify(answer.content ?? {})}`,
      );
    }),
    t('json_schema_2020_12_tool', 'Tool with JSON Schema 2020-12 features', () => text('ok'), {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, which the scenario checks for
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    }),
    t(
      'test_x_mcp_header',
      'Mirrors region in the Mcp-Param-Region header',
      ({ region }) => text(`region=${String(region)}`),
      {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
        required: ['region'],
      },
    ),
    t('test_missing_capability', 'Needs the sampling capability', () => text('sampled'), noArgs, {
      requiredClientCapabilities: { sampling: {} },
    }),
    t('test_streaming_elicitation', 'Asks for input (MRTR on 2026-07-28)', async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Anything to add?', requestedSchema: stringSchema('note') });
      return text(`note=${JSON.stringify(answer.content ?? {})}`);
    }),
    t('test_logging_tool', 'Logs when the request asks for log messages', (_args, ctx) => {
      ctx.log('info', 'test_logging_tool ran');
      return text('logged');
    }),
    t('test_trigger_tool_change', 'Notifies listen streams that the tool list changed', () => {
      hub.notifyToolsChanged();
      return text('tools changed');
    }),
    t('test_trigger_prompt_change', 'Notifies listen streams that the prompt list changed', () => {
      hub.notifyPromptsChanged();
      return text('prompts changed');
    }),
    t('test_input_required_result_elicitation', 'MRTR: elicits a name', async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'What is your name?', requestedSchema: stringSchema('name') },
        { key: 'user_name' },
      );
      return text(`Hello, ${String((answer.content as { name?: unknown })?.name)}!`);
    }),
    t('test_input_required_result_sampling', 'MRTR: asks the client to sample', async (_args, ctx) => {
      const answer = await ctx.sample(
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
          maxTokens: 100,
        },
        { key: 'capital_question' },
      );
      return text(`Sampled: ${(answer.content as { text?: string })?.text ?? ''}`);
    }),
    t('test_input_required_result_list_roots', 'MRTR: asks for the client roots', async (_args, ctx) => {
      const answer = await ctx.listRoots({ key: 'client_roots' });
      return text(`Roots: ${JSON.stringify(answer.roots ?? [])}`);
    }),
    t(
      'test_input_required_result_request_state',
      'MRTR: carries state between rounds',
      async (_args, ctx) => {
        const answer = await ctx.elicit(
          {
            message: 'Please confirm',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          },
          { key: 'confirm', state: { step: 'confirm' } },
        );
        return text(`state-ok: ${JSON.stringify(answer.content ?? {})}`);
      },
    ),
    t(
      'test_input_required_result_multiple_inputs',
      'MRTR: three kinds of input at once',
      async (_args, ctx) => {
        const answers = await ctx.input({
          user_name: {
            method: 'elicitation/create',
            params: { message: 'What is your name?', requestedSchema: stringSchema('name') },
          },
          greeting: {
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
              maxTokens: 50,
            },
          },
          client_roots: { method: 'roots/list', params: {} },
        });
        return text(`Got ${Object.keys(answers).length} answers`);
      },
    ),
    t('test_input_required_result_multi_round', 'MRTR: two rounds', async (_args, ctx) => {
      const first = await ctx.elicit(
        { message: 'Step 1: What is your name?', requestedSchema: stringSchema('name') },
        { key: 'step1', state: { round: 1 } },
      );
      const second = await ctx.elicit(
        { message: 'Step 2: What is your favorite color?', requestedSchema: stringSchema('color') },
        { key: 'step2', state: { round: 2 } },
      );
      return text(`${JSON.stringify(first.content)} likes ${JSON.stringify(second.content)}`);
    }),
    t(
      'test_input_required_result_tampered_state',
      'MRTR: refuses a tampered requestState',
      async (_args, ctx) => {
        const answer = await ctx.elicit(
          {
            message: 'Please confirm',
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          },
          { key: 'confirm', state: { step: 'confirm' } },
        );
        return text(`confirmed: ${JSON.stringify(answer.content ?? {})}`);
      },
    ),
    t(
      'test_input_required_result_capabilities',
      'MRTR: asks only for what the client declared',
      async (_args, ctx) => {
        if (ctx.clientCapabilities.elicitation !== undefined) {
          const answer = await ctx.elicit(
            { message: 'Name?', requestedSchema: stringSchema('name') },
            { key: 'user_name' },
          );
          return text(JSON.stringify(answer.content ?? {}));
        }
        const answer = await ctx.sample(
          { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 },
          { key: 'sample' },
        );
        return text(`Sampled: ${(answer.content as { text?: string })?.text ?? ''}`);
      },
    ),
  ];
}

/**
 * The fixture runtime; `hub` is the change hub the trigger tools notify, `tasks` runs the Tasks
 * extension's tools (close it when the server stops).
 */
export function createConformanceServer(
  hub: ChangeHub = createChangeHub(),
  tasks: TaskManager = createTaskManager({ pollIntervalMs: 250 }),
): Runtime {
  return createServer({
    name: 'snodo-conformance-server',
    version: '1.0.0',
    hub,
    tasks,
    tools: [...tools(hub), ...taskTools()],
    resources: [
      resource({
        uri: 'test://static-text',
        name: 'static-text',
        description: 'A static text resource',
        mimeType: 'text/plain',
        read: () => 'This is the content of the static text resource.',
      }),
      resource({
        uri: 'test://static-binary',
        name: 'static-binary',
        description: 'A static binary resource (a PNG)',
        mimeType: 'image/png',
        read: () => ({ blob: PNG, mimeType: 'image/png' }),
      }),
      resource({
        uri: 'test://watched-resource',
        name: 'watched-resource',
        description: 'A resource clients can subscribe to',
        mimeType: 'text/plain',
        read: () => 'Watched resource content',
      }),
    ],
    resourceTemplates: [
      resourceTemplate({
        uriTemplate: 'test://template/{id}/data',
        name: 'template-data',
        description: 'Data for an id',
        mimeType: 'application/json',
        read: ({ id }) => ({
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
          mimeType: 'application/json',
        }),
      }),
    ],
    prompts: [
      prompt({
        name: 'test_simple_prompt',
        description: 'A simple prompt',
        get: () => 'This is a simple prompt for testing.',
      }),
      prompt({
        name: 'test_prompt_with_arguments',
        description: 'A prompt with two arguments',
        arguments: [
          { name: 'arg1', description: 'First argument', required: true },
          { name: 'arg2', description: 'Second argument', required: true },
        ],
        get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
        complete: { arg1: (value) => ['paris', 'park', 'party'].filter((v) => v.startsWith(value)) },
      }),
      prompt({
        name: 'test_prompt_with_embedded_resource',
        description: 'A prompt with an embedded resource',
        arguments: [{ name: 'resourceUri', description: 'The resource to embed', required: true }],
        get: ({ resourceUri }) => [
          {
            role: 'user',
            content: {
              type: 'resource',
              resource: {
                uri: String(resourceUri),
                mimeType: 'text/plain',
                text: 'Embedded resource content for testing.',
              },
            },
          },
          { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
        ],
      }),
      prompt({
        name: 'test_prompt_with_image',
        description: 'A prompt with an image',
        get: () => [
          { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
        ],
      }),
      prompt({
        name: 'test_input_required_result_prompt',
        description: 'MRTR in a prompt',
        get: async (_args, ctx) => {
          const answer = await ctx.elicit(
            { message: 'What context should the prompt use?', requestedSchema: stringSchema('context') },
            { key: 'user_context' },
          );
          return `Use this context: ${String((answer.content as { context?: unknown })?.context)}`;
        },
      }),
    ],
  });
}
