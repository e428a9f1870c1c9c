import { join } from 'node:path';
import { type Client, type ConnectOptions, connect, type Subscription, type Target } from '@snodo/client';
import type { JsonRpcNotification, Runtime } from '@snodo/core';
import type { BackendStatus, HealthChange, McpProxy } from '../../src/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** A frontend: `@snodo/client` connected in-process to a proxy runtime. */
export function frontend(runtime: Runtime, options: ConnectOptions = {}): Promise<Client> {
  return connect({ direct: runtime }, options);
}

/** A stdio server that serves exactly `catalog` (see fixtures/catalog-server.mjs). */
export function catalogServer(catalog: Record<string, unknown>): Target {
  return {
    stdio: {
      command: process.execPath,
      args: [join(FIXTURES, 'catalog-server.mjs'), JSON.stringify(catalog)],
    },
  };
}

/** The flaky stdio server (fixtures/flaky-server.mjs). */
export function flakyServer(notify: boolean): Target {
  return {
    stdio: {
      command: process.execPath,
      args: [join(FIXTURES, 'flaky-server.mjs'), ...(notify ? ['--notify'] : [])],
    },
  };
}

/** A stdio server started through the pid launcher, which writes its pid to `pidFile`. */
export function withPidFile(script: string, args: string[], pidFile: string): Target {
  return {
    stdio: {
      command: process.execPath,
      args: [join(FIXTURES, 'pid-launcher.mjs'), script, ...args],
      env: { PID_FILE: pidFile, PATH: process.env.PATH ?? '' },
    },
  };
}

/** A stdio server started through the pid launcher, which appends its pid to `pidLog` (one line per process). */
export function withPidLog(script: string, args: string[], pidLog: string): Target {
  return {
    stdio: {
      command: process.execPath,
      args: [join(FIXTURES, 'pid-launcher.mjs'), script, ...args],
      env: { PID_LOG: pidLog, PATH: process.env.PATH ?? '' },
    },
  };
}

/**
 * Records health changes (`onHealthChange`) and lets a test wait for one: `until` resolves at once
 * when the proxy already reports the status, otherwise with the change that brings it.
 */
export function healthLog() {
  const changes: HealthChange[] = [];
  const waiters: {
    backend: string;
    status: BackendStatus;
    resolve(change: HealthChange | undefined): void;
  }[] = [];
  return {
    changes,
    onHealthChange(change: HealthChange) {
      changes.push(change);
      for (const waiter of [...waiters]) {
        if (waiter.backend === change.backend && waiter.status === change.status) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(change);
        }
      }
    },
    until(proxy: McpProxy, backend: string, status: BackendStatus): Promise<HealthChange | undefined> {
      if (proxy.health().backends.find((b) => b.id === backend)?.status === status)
        return Promise.resolve(undefined);
      return new Promise((resolve) => waiters.push({ backend, status, resolve }));
    },
  };
}

/** The JSON-RPC error a promise rejects with (a ProtocolError from the client). */
export async function rpcError(
  promise: Promise<unknown>,
): Promise<{ code: number; message: string; data?: any }> {
  try {
    await promise;
  } catch (error) {
    const typed = error as { code?: unknown; message: string; data?: unknown };
    if (typeof typed.code === 'number') return typed as { code: number; message: string; data?: any };
    throw error;
  }
  throw new Error('expected a JSON-RPC error, the call succeeded');
}

/** Reads a subscription one notification at a time. */
export function reader(subscription: Subscription) {
  const iterator = subscription[Symbol.asyncIterator]();
  return async (): Promise<JsonRpcNotification> => {
    const item = await iterator.next();
    if (item.done) throw new Error('the subscription ended');
    return item.value;
  };
}
