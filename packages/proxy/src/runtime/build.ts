import {
  createServer,
  type ProtocolVersion,
  type Runtime,
  TASKS_EXTENSION,
  UI_EXTENSION,
  UI_MIME_TYPE,
} from '@snodo/core';
import { deriveRuntime } from '@snodo/core/internal';
import { PROXY_EXTENSION } from '../defaults.js';
import { optionError } from '../errors.js';
import { type AuthorizationPolicy, policyProblem } from '../policy.js';
import { clientNotificationHandler } from '../roots.js';
import { PROXY_VERSION } from '../version.js';
import type { ProxyCore } from './context.js';
import {
  admitSubscribeOperation,
  filteredHub,
  listenOperation,
  sessionHubOperation,
  subscribable,
} from './listen.js';
import { operations } from './ops.js';
import { TaskIds, tasksExtension } from './tasks.js';

/** Options of `proxy.runtime()`: the frontend side. */
export interface RuntimeOptions {
  /** Who may see and use what; overrides the proxy's `authorization`. */
  authorization?: AuthorizationPolicy;
  /** `serverInfo` frontends see. Default `{ name: 'snodo-proxy', version: <this package's> }`. */
  name?: string;
  version?: string;
  title?: string;
  instructions?: string;
  /** MRTR `requestState` protection (see `createServer`): share `secret` when several proxies serve one endpoint. */
  mrtr?: { secret?: Uint8Array | string; stateTtlMs?: number; maxRounds?: number };
  /** Revisions served to frontends (default: all four; resource updates reach 2026-07-28 subscribers by principal). */
  protocolVersions?: ProtocolVersion[];
}

/**
 * The runtime every Snodo transport serves: a `createServer` runtime (identity, revisions, MRTR
 * key, the `dev.snodo/proxy` extension) whose lists, calls, reads, gets, completions and
 * subscriptions are the proxy's, read from the current catalog at each request.
 */
export function buildRuntime(
  core: ProxyCore,
  fallback: AuthorizationPolicy | undefined,
  options: RuntimeOptions = {},
): Runtime {
  if (typeof options !== 'object' || options === null) throw optionError('runtime options must be an object');
  const problem = policyProblem('authorization', options.authorization);
  if (problem) throw optionError(problem);
  const policy = options.authorization ?? fallback;
  // Task handles verify on every proxy sharing the MRTR secret (else on this one only).
  const scope = { core, policy, taskIds: new TaskIds(options.mrtr?.secret) };
  const base = createServer({
    name: options.name ?? 'snodo-proxy',
    version: options.version ?? PROXY_VERSION,
    ...(options.title === undefined ? {} : { title: options.title }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    ...(options.mrtr === undefined ? {} : { mrtr: options.mrtr }),
    ...(options.protocolVersions === undefined ? {} : { protocolVersions: options.protocolVersions }),
    logging: false,
    ...(core.logger === undefined ? {} : { logger: core.logger }),
    extensions: {
      [PROXY_EXTENSION]: {
        // The aggregate only: no backend ids, no error details.
        methods: { 'proxy/health': () => ({ status: core.aggregate() }) },
      },
      // Backends' tasks pass through, to frontends that declare the extension.
      [TASKS_EXTENSION]: tasksExtension(scope),
    },
  });
  return deriveRuntime(base, {
    capabilities: {
      ...base.capabilities,
      // MCP Apps pass through: backends' UI links and pages, to frontends that declare the extension.
      extensions: { ...base.capabilities.extensions, [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } },
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      completions: {},
    },
    // Each initialize-based session's stream gets `sessionHub`'s; this one is for anything else.
    hub: filteredHub(
      core.changes,
      (event) => event.type !== 'updated' || subscribable(core, policy, undefined, event.uri),
    ),
    operations: operations(scope),
    openListen: listenOperation(core, policy),
    admitSubscribe: admitSubscribeOperation(core, policy),
    sessionHub: sessionHubOperation(core, policy),
    onClientNotification: clientNotificationHandler(core),
  });
}
