import type { SSEMessage } from '@fastify/sse';
import { type HttpResponse, type HttpStreamEvent, isStreamResponse, sseText } from '@snodo/core';
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
  // Commit the stream at once, as core's node writer does: @fastify/sse writes headers only with
  // the first event, so a quiet stream (a session's GET) would leave the client without an answer.
  reply.sse.sendHeaders();
  reply.raw.flushHeaders();
  await Promise.race([reply.sse.send(messages(reply, response.events)), closed(disconnect)]);
  return undefined;
}

/**
 * Core's structured events as `@fastify/sse` messages (the data is already encoded JSON, written
 * as is by the route's identity serializer). A keepalive tick is written as core's comment line,
 * which `@fastify/sse` has no message for; the route's own heartbeat is off.
 */
async function* messages(
  reply: FastifyReply,
  events: AsyncIterable<HttpStreamEvent>,
): AsyncGenerator<SSEMessage> {
  for await (const event of events) {
    if ('keepalive' in event) {
      reply.sse.sendHeaders();
      if (!reply.raw.write(sseText(event))) await drained(reply);
      continue;
    }
    const message: SSEMessage = { event: event.event, data: event.data };
    if (event.id !== undefined) message.id = event.id;
    yield message;
  }
}

function drained(reply: FastifyReply): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      reply.raw.off('drain', done);
      reply.raw.off('close', done);
      resolve();
    };
    reply.raw.on('drain', done);
    reply.raw.on('close', done);
  });
}

/**
 * Resolves when the client is gone. `@fastify/sse` waits for `drain` on a full socket and does
 * not wake on `close`; racing against this lets the handler end with the client.
 */
function closed(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
