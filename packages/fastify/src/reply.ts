import type { SSEMessage } from '@fastify/sse';
import { type HttpResponse, isStreamResponse } from '@snodo/core';
import type { FastifyReply } from 'fastify';

/**
 * Writes core's response. JSON goes through `reply.send`, so the application's `onSend` hooks
 * (compression, logging) see it; an SSE response goes through `@fastify/sse`, one event per
 * message, until the stream ends or the client leaves (`disconnect`), whichever comes first.
 */
export async function sendResponse(
  reply: FastifyReply,
  response: HttpResponse,
  disconnect: AbortSignal,
): Promise<FastifyReply | undefined> {
  reply.code(response.status);
  for (const [name, value] of Object.entries(response.headers)) reply.header(name, value);
  if (!isStreamResponse(response)) {
    // Bytes, not a string: Fastify would append "; charset=utf-8" to core's content type.
    return reply.send(response.body === '' ? undefined : Buffer.from(response.body));
  }
  await Promise.race([reply.sse.send(events(response.stream)), closed(disconnect)]);
  return undefined;
}

/**
 * Core's SSE text as `@fastify/sse` messages: the data is already encoded JSON, written as is by
 * the route's identity serializer. Comment frames (core's keepalives) are dropped: `@fastify/sse`
 * writes its own heartbeat at the same interval.
 */
async function* events(stream: AsyncIterable<string>): AsyncGenerator<SSEMessage> {
  for await (const frame of stream) {
    const message = parseFrame(frame);
    if (message !== undefined) yield message;
  }
}

/** One SSE event block (the `event`, `data` and `id` fields; comments ignored). */
export function parseFrame(frame: string): SSEMessage | undefined {
  let event: string | undefined;
  let id: string | undefined;
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id') id = value;
  }
  if (data.length === 0) return undefined;
  const message: SSEMessage = { data: data.join('\n') };
  if (event !== undefined) message.event = event;
  if (id !== undefined) message.id = id;
  return message;
}

/**
 * Resolves when the client is gone. `@fastify/sse` waits for `drain` on a full socket and does
 * not wake on `close`; racing against this lets the handler end with the client.
 */
function closed(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
