import type { Readable } from 'node:stream';
import { fastifySSE } from '@fastify/sse';
import { SnodoError } from '@snodo/core';
import { metadataPaths } from '@snodo/core/internal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fastifyPlugin } from 'fastify-plugin';
import { readBody } from './body.js';
import { drainAfterReply } from './drain.js';
import { type PluginConfig, resolveOptions, type SnodoFastifyOptions } from './options.js';
import { sendResponse } from './reply.js';
import { disconnectSignal, toHttpRequest } from './request.js';
import './augment.js';

/** The name Fastify knows the plugin by (`dependencies: ['@snodo/fastify']`, `hasPlugin`). */
export const PLUGIN_NAME = '@snodo/fastify';

/**
 * Mounts MCP's Streamable HTTP endpoint: `POST`, `DELETE` and `GET` (ending a session of the
 * initialize-based revisions, and its standalone SSE stream) on `path`, inside the scope the
 * plugin is registered in.
 *
 * Encapsulated on purpose: the plugin replaces the content-type parsers of its own context with
 * one that hands it the raw body, so the application's JSON parser and every other route are left
 * alone. It still inherits the caller's prefix, hooks (authentication) and error handler.
 */
async function snodo(instance: FastifyInstance, options: SnodoFastifyOptions): Promise<void> {
  const shutdown = new AbortController();
  const given = options?.shutdownSignal;
  // Builds core's handler, which validates the runtime's x-mcp-header annotations now.
  const config = resolveOptions(options, shutdown.signal);
  if (given !== undefined) {
    if (given.aborted) shutdown.abort(given.reason);
    else given.addEventListener('abort', () => shutdown.abort(given.reason), { once: true });
  }

  // Open subscription streams end with their final result before the server waits for connections.
  instance.addHook('preClose', (done) => {
    shutdown.abort(new Error('application closing'));
    done();
  });
  instance.addHook('onClose', () => config.handler.close());

  const payloads = new WeakMap<FastifyRequest, Readable>();
  instance.removeAllContentTypeParsers();
  instance.addContentTypeParser('*', (request, payload, done) => {
    // Read in the handler, under maxBodyBytes and bodyTimeout, once every hook has run.
    payloads.set(request, payload as Readable);
    done(null);
  });

  // Core's stream carries its own keepalive ticks (keepAliveInterval): @fastify/sse writes none.
  if (!instance.hasPlugin('@fastify/sse')) await instance.register(fastifySSE, { heartbeatInterval: 0 });

  // The protected resource metadata (core answers it) at its well-known paths, under this scope's prefix.
  for (const url of config.http.auth === undefined ? [] : metadataPaths(config.http.auth)) {
    instance.get(url, (request, reply) => serve(config, request, reply, undefined));
  }

  instance.route({
    // Every method core answers: PUT and PATCH get its 405 with Allow, as on the native listener.
    method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'],
    url: config.path,
    sse: { kind: 'manual', heartbeat: false, serializer: (data: string) => data },
    handler: (request, reply) => serve(config, request, reply, payloads.get(request)),
  });
}

async function serve(
  config: PluginConfig,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: Readable | undefined,
): Promise<FastifyReply | undefined> {
  const signal = disconnectSignal(request, reply);
  reply.raw.once('finish', () => {
    // Fastify's close() closes the connections idle when it starts; one whose response (a
    // subscription ending with its final result) finishes later would stay open until the client
    // or the keep-alive timer closes it.
    if (config.http.shutdownSignal?.aborted === true && request.raw.httpVersionMajor < 2) {
      request.raw.socket.destroySoon();
    }
  });
  let body: Uint8Array;
  try {
    body = await readBody(payload, request.headers['content-length'], config.limits);
  } catch (error) {
    if (SnodoError.is(error) && error.code === 'SNODO_ERR_BODY_TOO_LARGE')
      drainAfterReply(request, reply, config.drain);
    else closeAfterReply(request, reply);
    throw error;
  }
  const response = await config.handler.handle(toHttpRequest(request, body, signal, config.publicUrl));
  return sendResponse(reply, response, signal);
}

/** A body too slow or gone: the unread rest must not be taken for the next request on the connection. */
function closeAfterReply(request: FastifyRequest, reply: FastifyReply): void {
  if (request.raw.httpVersionMajor < 2) reply.header('connection', 'close');
}

/** `app.register(snodo, { runtime, path: '/mcp', ... })`. */
export const snodoFastify = fastifyPlugin(snodo, {
  name: PLUGIN_NAME,
  fastify: '5.x',
  encapsulate: true,
});
