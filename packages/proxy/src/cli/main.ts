#!/usr/bin/env node
// snodo-proxy --config proxy.json [--stdio]
// Serves one MCP endpoint in front of the config's backends: Streamable HTTP (listen, default
// http://127.0.0.1:4000/mcp) or, with --stdio, stdin/stdout. Backend health changes go to stderr.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SnodoError } from '@snodo/core';
import { listen, type McpHttpServer } from '@snodo/transport-http';
import { redirectConsole, serve } from '@snodo/transport-stdio';
import { createProxy, type McpProxy } from '../proxy.js';
import { parseConfig, proxyOptions } from './config.js';
import { bearerAuthenticator } from './tokens.js';

const USAGE = 'usage: snodo-proxy --config proxy.json [--stdio]';

function log(line: string): void {
  process.stderr.write(`snodo-proxy: ${line}\n`);
}

function fail(message: string): never {
  process.stderr.write(`snodo-proxy: ${message}\n`);
  process.exit(2);
}

/** A `listen()` or `serve()` option the config passed through broke its rule. */
function isInvalidOption(error: unknown): error is SnodoError {
  return SnodoError.is(error) && error.code === 'SNODO_ERR_INVALID_OPTION';
}

async function main(): Promise<void> {
  let values: { config?: string; stdio?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        config: { type: 'string', short: 'c' },
        stdio: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (values.help) {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  if (values.config === undefined) fail(`--config is required\n${USAGE}`);
  const path = values.config;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    fail(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = parseConfig(raw);
  if ('problems' in parsed)
    fail(`invalid config ${path}:\n${parsed.problems.map((p) => `  ${p}`).join('\n')}`);
  const { config } = parsed;
  // stdout will carry the protocol: from here on, console output (the backends' start-up
  // included) goes to stderr; serve joins this redirect and the process ends with it held.
  if (values.stdio) redirectConsole();
  let proxy: McpProxy;
  try {
    proxy = await createProxy({
      ...proxyOptions(config, path),
      onHealthChange: (change) =>
        log(
          `backend ${change.backend} ${change.status}${change.error === undefined ? '' : `: ${change.error}`}`,
        ),
      // Evictions say the bound is too low for the callers at hand; other changes are routine.
      onSessionChange: (change) => {
        if (change.reason === 'evicted')
          log(
            `backend ${change.backend}: closed the least recently used idle session to make room (maxSessions)`,
          );
      },
    });
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  const runtime = proxy.runtime();
  let server: McpHttpServer | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (why: string) => {
    stopping ??= (async () => {
      log(`${why}: shutting down`);
      await server?.close();
      await proxy.close();
      process.exit(0);
    })();
    return stopping;
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));

  if (values.stdio) {
    if (config.frontendTokens || config.auth)
      log('frontendTokens and auth apply to HTTP only; stdio serves its one client');
    await serve(runtime, config.stdio ?? {}).then(
      () => stop('end of input'),
      async (error: unknown) => {
        if (isInvalidOption(error)) {
          await proxy.close();
          fail(`invalid config ${path}: stdio: ${error.message}`);
        }
        log(`stdio serving failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
    return;
  }
  try {
    server = await listen({
      ...config.http,
      runtime,
      host: config.listen.host,
      port: config.listen.port,
      path: config.listen.path,
      ...(config.frontendTokens ? { authenticate: bearerAuthenticator(config.frontendTokens) } : {}),
      ...(config.auth ? { auth: config.auth } : {}),
      ...(config.corsOrigins ? { cors: { origins: config.corsOrigins } } : {}),
      ...(config.health ? { health: { details: () => ({ proxy: proxy.health() }) } } : {}),
    });
  } catch (error) {
    await proxy.close();
    if (isInvalidOption(error)) fail(`invalid config ${path}: http: ${error.message}`);
    fail(
      `cannot serve HTTP on ${config.listen.host}:${config.listen.port}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  log(`listening on ${server.url()}`);
}

void main();
