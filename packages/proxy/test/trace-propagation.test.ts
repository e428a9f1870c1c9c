// One trace across three processes — client → proxy → backend — each exporting its spans over
// OTLP/HTTP to a small collector in this test: the spans share one trace id and each hop's SERVER
// span is the child of the previous hop's CLIENT span.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitForOutput } from './helpers/servers.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'otel');

/** A span as the OTLP/JSON export carries it, with the service that sent it. */
interface Exported {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
}

const received: Exported[] = [];
let collector: Server;
let collectorUrl: string;

beforeAll(async () => {
  collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const resourceSpans of body.resourceSpans ?? []) {
        const service = resourceSpans.resource.attributes.find(
          (attribute: { key: string }) => attribute.key === 'service.name',
        )?.value.stringValue;
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) {
            received.push({
              service,
              name: span.name,
              kind: span.kind,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  collector.listen(0, '127.0.0.1');
  await once(collector, 'listening');
  collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
});
afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

function start(script: string, ...args: string[]): ChildProcess {
  return spawn(process.execPath, [join(FIXTURES, script), ...args], {
    env: { ...process.env, OTLP_URL: collectorUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

// OTLP span kinds: 2 SERVER, 3 CLIENT.
const SERVER = 2;
const CLIENT = 3;

it('client → proxy → backend is one trace, each SERVER span the child of the CLIENT span before it', async () => {
  const backend = start('backend.mjs');
  const proxy = start('proxy.mjs', (await waitForOutput(backend, 'stdout', /LISTENING (\S+)/))[1] as string);
  try {
    const proxyUrl = (await waitForOutput(proxy, 'stdout', /LISTENING (\S+)/))[1] as string;
    const client = start('client.mjs', proxyUrl);
    const traceId = (await waitForOutput(client, 'stdout', /TRACE ([0-9a-f]{32})/))[1] as string;
    if (client.exitCode === null) await once(client, 'exit');
    await stop(proxy);
    await stop(backend);

    const inTrace = received.filter((span) => span.traceId === traceId);
    const find = (service: string, name: string, kind: number) => {
      const found = inTrace.filter(
        (span) => span.service === service && span.name === name && span.kind === kind,
      );
      expect(found, `${service} ${name}`).toHaveLength(1);
      return found[0] as Exported;
    };
    const step = inTrace.find((span) => span.service === 'client' && span.name === 'agent step');
    const clientCall = find('client', 'tools/call b.echo', CLIENT);
    const proxyServer = find('proxy', 'tools/call b.echo', SERVER);
    const proxyCall = find('proxy', 'tools/call echo', CLIENT);
    const backendServer = find('backend', 'tools/call echo', SERVER);
    expect(step?.parentSpanId).toBe('');
    expect(clientCall.parentSpanId).toBe(step?.spanId);
    expect(proxyServer.parentSpanId).toBe(clientCall.spanId);
    expect(proxyCall.parentSpanId).toBe(proxyServer.spanId);
    expect(backendServer.parentSpanId).toBe(proxyCall.spanId);
  } finally {
    await stop(proxy);
    await stop(backend);
  }
}, 60_000);
