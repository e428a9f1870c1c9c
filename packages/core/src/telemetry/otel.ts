import type * as OtelApi from '@opentelemetry/api';

/** `@opentelemetry/api`, as loaded. Never part of a public type: the package is an optional peer. */
export type Otel = typeof OtelApi;

let api: Otel | null | undefined;
let loading: Promise<Otel | null> | undefined;

/**
 * `@opentelemetry/api` when it is installed (an optional peer dependency), imported once, on first
 * use; null when it is not. Without it nothing is traced or measured, and each request costs this
 * one check. With it but no SDK registered, spans and instruments are the API's no-ops.
 */
export function loadOtel(): Otel | null | Promise<Otel | null> {
  if (api !== undefined) return api;
  loading ??= import('@opentelemetry/api').then(
    (loaded) => {
      api = loaded;
      return loaded;
    },
    () => {
      api = null;
      return null;
    },
  );
  return loading;
}

/** The API once loaded (undefined before the first `loadOtel` settles, null when absent). */
export function loadedOtel(): Otel | null | undefined {
  return api;
}
