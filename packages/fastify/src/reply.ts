import type { SSEMessage } from '@fastify/sse';
import {
  type AbortSignalLike,
  type HttpResponse,
  type HttpStreamEvent,
  isStreamResponse,
  sseText,
} from '@snodo/core';
import type { FastifyReply } from 'fastify';

/**
 * Writes core's response. JSON goes through `reply.send`, so the application's `onSend` hooks
 * (compression, logging) see it; an SSE response goes through `@fastify/sse`, one event per
 * message, until the stream ends or the client leaves (`disconnect`), whichever comes first.
 * Once core drops a reader that fell behind (the response's `cut`), a socket still full is
 * destroyed, so a client that stopped reading does not keep its connection.
 */
export async function sendResponse(
  reply: FastifyReply,
  response: HttpResponse,
  disconnect: AbortSignalLike,
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
  const cut = response.cut;
  await Promise.race([
    reply.sse.send(messages(reply, response.events, cut)),
    closed(disconnect),
    stalledAtCut(reply, cut),
  ]);
  return undefined;
}

/**
 * Core's structured events as `@fastify/sse` messages (the data is already encoded JSON, written
 * as is by the route's identity serializer). A keepalive tick is written as core's comment line,
 * which `@fastify/sse` has no message for; the route's own heartbeat is off. After `cut`, the
 * rest (the graceful end) is written here too, so that a full socket destroys the response instead
 * of waiting in `@fastify/sse` for a `drain` that a dropped reader may never give.
 */
async function* messages(
  reply: FastifyReply,
  events: AsyncIterable<HttpStreamEvent>,
  cut: AbortSignal | undefined,
): AsyncGenerator<SSEMessage> {
  for await (const event of events) {
    if ('keepalive' in event || cut?.aborted) {
      reply.sse.sendHeaders();
      if (!reply.raw.write(sseText(event)) && !(await drained(reply, cut))) {
        reply.raw.destroy();
        return;
      }
      continue;
    }
    const message: SSEMessage = { event: event.event, data: event.data };
    if (event.id !== undefined) message.id = event.id;
    yield message;
  }
}

/** Resolves true on `drain` or `close`, false when `cut` aborts first. */
function drained(reply: FastifyReply, cut: AbortSignal | undefined): Promise<boolean> {
  if (cut?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (result: boolean) => {
      reply.raw.off('drain', onDrain);
      reply.raw.off('close', onDrain);
      cut?.removeEventListener('abort', onCut);
      resolve(result);
    };
    const onDrain = () => done(true);
    const onCut = () => done(false);
    reply.raw.on('drain', onDrain);
    reply.raw.on('close', onDrain);
    cut?.addEventListener('abort', onCut);
  });
}

/**
 * Resolves when core drops the reader while the socket is full (`@fastify/sse` is then waiting
 * for a `drain` that a client that stopped reading never gives): the response is destroyed.
 * Never resolves otherwise; a reader still taking data reads the rest in `messages`.
 */
function stalledAtCut(reply: FastifyReply, cut: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (cut === undefined) return;
    const check = () => {
      if (!reply.raw.writableNeedDrain) return;
      reply.raw.destroy();
      resolve();
    };
    if (cut.aborted) check();
    else cut.addEventListener('abort', check, { once: true });
  });
}

/**
 * Resolves when the client is gone. `@fastify/sse` waits for `drain` on a full socket and does
 * not wake on `close`; racing against this lets the handler end with the client.
 */
function closed(signal: AbortSignalLike): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
