import { describe, expect, it, vi } from 'vitest';
import { Connection } from '../src/engine/connection.js';
import {
  type ControlChannel,
  type ControlMessage,
  createServer,
  Executor,
  type HandlerContext,
  type JsonRpcMessage,
  MemoryControlChannel,
  resourceTemplate,
} from '../src/index.js';
import { classifyMessage, requestKey } from '../src/internal.js';
import { modern } from './helpers/demo.js';
import { recordingOutput } from './helpers/run.js';
import { httpServer, newProbe } from './http-helpers.js';

/** A channel that records what goes through it and hands it to the in-memory default. */
class RecordingChannel implements ControlChannel {
  readonly inner = new MemoryControlChannel();
  readonly seen: { id: string; message: ControlMessage; delivered: boolean }[] = [];
  attach: ControlChannel['attach'] = (id, holder) => this.inner.attach(id, holder);
  deliver(id: string, message: ControlMessage): boolean {
    const delivered = this.inner.deliver(id, message);
    this.seen.push({ id, message, delivered });
    return delivered;
  }
}

function open(control: ControlChannel) {
  const probe = newProbe();
  const { output, written } = recordingOutput();
  const ignored: unknown[] = [];
  const connection = new Connection(httpServer(probe), {
    output,
    maxBatchItems: 100,
    control,
    onError: (error) => {
      throw error;
    },
    onIgnoredAnswer: (id) => ignored.push(id),
  });
  const receive = (message: unknown) => connection.receive(classifyMessage(message));
  return { probe, written, ignored, connection, receive };
}

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
};

describe('the connection engine: control messages go through the ControlChannel seam', () => {
  it('a client cancel reaches the running call through the channel: its handler is aborted and nothing is written for it', async () => {
    const control = new RecordingChannel();
    const { probe, written, connection, receive } = open(control);
    await receive(initialize);
    await receive({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await receive({ jsonrpc: '2.0', id: 'slow-1', method: 'tools/call', params: { name: 'sleep' } });
    const signal = await probe.sleeping.promise;
    await receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow-1' } });
    await probe.sleepAborted.promise;
    expect(signal.aborted).toBe(true);
    expect(control.seen).toEqual([
      {
        id: connection.id,
        message: { kind: 'cancel', requestKey: requestKey('slow-1'), reason: 'cancelled by the client' },
        delivered: true,
      },
    ]);
    await connection.close('end of test');
    expect(written.map((message) => 'id' in message && message.id)).toEqual([0]);
    connection.destroy();
  });

  it('a cancel naming no running request and an answer to no pending server request reach nothing, and say so', async () => {
    const control = new RecordingChannel();
    const { written, ignored, connection, receive } = open(control);
    await receive(initialize);
    await receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nobody' } });
    await receive({ jsonrpc: '2.0', id: 's99', result: {} });
    expect(control.seen.map(({ message, delivered }) => [message.kind, delivered])).toEqual([
      ['cancel', false],
      ['answer', false],
    ]);
    expect(ignored).toEqual(['s99']);
    expect(written).toHaveLength(1);
    connection.destroy();
  });

  it('an end delivered through the channel aborts what runs on the connection', async () => {
    const control = new MemoryControlChannel();
    const { probe, connection, receive } = open(control);
    await receive(initialize);
    await receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'sleep' } });
    const signal = await probe.sleeping.promise;
    expect(control.deliver(connection.id, { kind: 'end', reason: 'gone' })).toBe(true);
    await probe.sleepAborted.promise;
    expect(signal.aborted).toBe(true);
    // Detached: nothing holds the connection's id any more.
    expect(control.sessions).toBe(0);
  });
});

describe('a template read through the engine', () => {
  it('gets the request context with its uri, and the request signal, which a client cancel aborts', async () => {
    let seen: (HandlerContext & { uri: string }) | undefined;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const runtime = createServer({
      name: 's',
      version: '1',
      resourceTemplates: [
        resourceTemplate({
          uriTemplate: 'x://items/{id}',
          name: 'item',
          read: async ({ id }, context) => {
            seen = context;
            await gate;
            return `item ${id}`;
          },
        }),
      ],
    });
    const written: JsonRpcMessage[] = [];
    const connection = new Connection(runtime, {
      output: {
        write: (message) => {
          written.push(message as JsonRpcMessage);
          return true;
        },
        ready: () => Promise.resolve(),
        blocked: false,
      },
      executor: new Executor(),
      maxBatchItems: 100,
      onError: (error) => {
        throw error;
      },
    });
    const read = (id: number, uri: string) =>
      connection.receive(classifyMessage({ ...modern('resources/read', { uri }), id }));
    await read(1, 'x://items/7');
    await vi.waitFor(() => expect(seen).toBeDefined());
    const first = seen as HandlerContext & { uri: string };
    expect(first).toMatchObject({ uri: 'x://items/7', requestId: 1, method: 'resources/read' });
    expect(Object.keys(first).slice(-2)).toEqual(['signal', 'uri']);
    expect(first.signal).toBeInstanceOf(AbortSignal);
    expect(first.signal.aborted).toBe(false);
    await connection.cancel(1, 'cancelled by the client');
    expect(first.signal.aborted).toBe(true);
    release();
    await connection.close('done');
    expect(written).toEqual([]);
  });
});
