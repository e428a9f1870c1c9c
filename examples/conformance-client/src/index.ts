#!/usr/bin/env node
// The client the official MCP conformance suite runs (`conformance client --command "node
// examples/conformance-client/dist/index.js"`): the suite appends the mock server's URL as the last
// argument and names the scenario in MCP_CONFORMANCE_SCENARIO, the revision in
// MCP_CONFORMANCE_PROTOCOL_VERSION and extra input in MCP_CONFORMANCE_CONTEXT (JSON).
// Everything goes through @snodo/client; an unknown scenario exits 0.
import { type Client, type ConnectOptions, connect, type Tool } from '@snodo/client';
import { isKnownVersion, type ProtocolVersion } from '@snodo/core';

const url = process.argv[process.argv.length - 1] ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const requested = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  toolCalls?: { name: string; arguments?: Record<string, unknown> }[];
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
};
const log = (...parts: unknown[]) => console.error('[conformance-client]', ...parts);

/** A value for each property of an elicitation schema: its default, else something of its type. */
function defaults(schema: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema as { properties?: Record<string, Record<string, unknown>> } | undefined)
    ?.properties;
  for (const [name, property] of Object.entries(properties ?? {})) {
    if (property.default !== undefined) out[name] = property.default;
    else if (property.type === 'boolean') out[name] = true;
    else if (property.type === 'integer' || property.type === 'number') out[name] = 1;
    else if (Array.isArray(property.enum)) out[name] = property.enum[0];
    else out[name] = 'test';
  }
  return out;
}

/** Arguments that satisfy a tool's required properties. */
function argumentsFor(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as { required?: string[]; properties?: Record<string, { type?: string }> };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] =
      type === 'integer' || type === 'number'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'object'
            ? {}
            : type === 'array'
              ? []
              : 'us-west1';
  }
  return args;
}

let onElicitHook: (() => Promise<void>) | undefined;

/** The client-credentials scenarios' client: its secret, or its private key (PKCS#8 PEM, ES256) for private_key_jwt. */
async function clientCredentials(): Promise<
  { clientId: string; clientSecret: string } | { clientId: string; privateKey: CryptoKey }
> {
  const clientId = context.client_id ?? '';
  if (context.private_key_pem === undefined) return { clientId, clientSecret: context.client_secret ?? '' };
  if (context.signing_algorithm !== undefined && context.signing_algorithm !== 'ES256') {
    throw new Error(`unsupported signing algorithm ${context.signing_algorithm}`);
  }
  const der = Buffer.from(context.private_key_pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  const privateKey = await crypto.subtle.importKey(
    'pkcs8',
    der,
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['sign'],
  );
  return { clientId, privateKey };
}

const options: ConnectOptions = {
  clientInfo: { name: 'snodo-conformance-client', version: '0.0.0' },
  protocolVersions: [isKnownVersion(requested) ? requested : ('2025-11-25' as ProtocolVersion)],
  onElicit: async (params) => {
    await onElicitHook?.();
    return { action: 'accept', content: defaults(params.requestedSchema) };
  },
  onSample: () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Paris' },
    model: 'snodo-test-model',
    stopReason: 'endTurn',
  }),
  onRoots: () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] }),
  onWarning: (message) => log('warning:', message),
  // The suite kills a client after its own timeout (the test gives it 60 s); under a parallel run an OAuth
  // flow alone can take many seconds, and a call's timeout covers its authorization.
  timeout: 55_000,
  // OAuth for the auth/* scenarios: the client-credentials ones (the oauth-client-credentials
  // extension) with the context's secret or private key; the others with the authorization code
  // flow, where the mock authorization server redirects at once, so the "user agent" step is one
  // GET whose Location is the redirect back.
  oauth: scenario.startsWith('auth/client-credentials-')
    ? { clientCredentials: await clientCredentials() }
    : {
        redirectUrl: 'http://localhost:3000/callback',
        clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
        clientMetadata: { client_name: 'snodo-conformance-client' },
        ...(context.client_id === undefined ? {} : { clientId: context.client_id }),
        ...(context.client_secret === undefined ? {} : { clientSecret: context.client_secret }),
        authorize: async (url) => {
          const response = await fetch(url, { redirect: 'manual' });
          await response.arrayBuffer();
          const location = response.headers.get('location');
          if (location === null) throw new Error(`the authorization endpoint answered ${response.status}`);
          return new URL(location, url);
        },
      },
};

/** The auth/* scenarios: authorize, then use the server (list its tools and call each). */
async function authorizedUse(client: Client): Promise<void> {
  for (const tool of await client.allTools()) await client.callTool(tool.name, argumentsFor(tool));
}

const scenarios: Record<string, (client: Client) => Promise<void>> = {
  async initialize(client) {
    await client.allTools();
  },
  async tools_call(client) {
    await client.allTools();
    log(JSON.stringify(await client.callTool('add_numbers', { a: 5, b: 3 })));
  },
  async 'elicitation-sep1034-client-defaults'(client) {
    await client.allTools();
    log(JSON.stringify(await client.callTool('test_client_elicitation_defaults', {})));
  },
  async 'sse-retry'(client) {
    await client.allTools();
    log(JSON.stringify(await client.callTool('test_reconnection', {})));
  },
  async 'request-metadata'(client) {
    await client.discover();
    await client.allTools();
  },
  async 'sep-2322-client-request-state'(client) {
    await client.allTools();
    // An unrelated call between the rounds of another: it must carry none of that call's input.
    onElicitHook = async () => {
      onElicitHook = undefined;
      await client.callTool('test_mrtr_unrelated', {});
    };
    await client.callTool('test_mrtr_echo_state', {});
    await client.callTool('test_mrtr_no_state', {});
    await client.callTool('test_mrtr_no_result_type', {});
  },
  async 'http-standard-headers'(client) {
    for (const tool of await client.allTools()) await client.callTool(tool.name, argumentsFor(tool));
    for (const resource of await client.allResources()) await client.readResource(resource.uri);
    for (const prompt of await client.allPrompts()) await client.getPrompt(prompt.name);
  },
  async 'http-custom-headers'(client) {
    await client.allTools();
    for (const call of context.toolCalls ?? []) await client.callTool(call.name, call.arguments ?? {});
  },
  async 'http-invalid-tool-headers'(client) {
    // Tools with invalid x-mcp-header annotations are dropped from the list (warnings on stderr).
    for (const tool of await client.allTools()) await client.callTool(tool.name, argumentsFor(tool));
  },
  async 'json-schema-ref-no-deref'(client) {
    await client.allTools();
  },
  async 'json-schema-2020-12-preservation'(client) {
    const tools = await client.allTools();
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    await client.callTool('json_schema_echo', { schema: tool?.inputSchema ?? {} });
  },
};

async function main(): Promise<number> {
  const run = scenarios[scenario] ?? (scenario.startsWith('auth/') ? authorizedUse : undefined);
  if (!run) {
    log(`no handler for scenario ${JSON.stringify(scenario)}`);
    return 0;
  }
  const client = await connect({ http: url }, options);
  try {
    await run(client);
    return 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log('failed:', error instanceof Error ? (error.stack ?? error.message) : error);
    process.exit(1);
  },
);
