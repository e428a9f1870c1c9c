import { META, type ProtocolVersion } from '../protocol/types.js';
import { ALL_INPUT_METHODS, classifyWith, type Dialect, errorObject, type MethodSpec } from './dialect.js';
import { copyFields } from './projection.js';

const notCacheHint = (key: string): boolean => key !== 'ttlMs' && key !== 'cacheScope';

const request = (extra: Partial<MethodSpec> = {}): MethodSpec => ({ kind: 'request', ...extra });

const METHODS: ReadonlyMap<string, MethodSpec> = new Map([
  ['server/discover', request({ cacheable: true })],
  ['tools/list', request({ cacheable: true })],
  ['tools/call', request({ inputRequired: true })],
  ['prompts/list', request({ cacheable: true })],
  ['prompts/get', request({ inputRequired: true })],
  ['resources/list', request({ cacheable: true })],
  ['resources/templates/list', request({ cacheable: true })],
  ['resources/read', request({ cacheable: true, inputRequired: true })],
  ['subscriptions/listen', request()],
  ['completion/complete', request()],
  ['notifications/cancelled', { kind: 'notification' }],
]);

/**
 * 2026-07-28: stateless. Every request carries its version and capabilities in `_meta`, every
 * result a `resultType` and the server's identity in `_meta`, cacheable results `ttlMs`/`cacheScope`.
 */
export const rev20260728: Dialect = Object.freeze({
  version: '2026-07-28' as ProtocolVersion,
  era: 'modern',
  batches: false,
  inputMethods: ALL_INPUT_METHODS,
  invalidToolArguments: 'tool-error',
  methods: METHODS,
  classify: (method, kind) => classifyWith(METHODS, method, kind),
  shapeResult(method, result, shaping) {
    const spec = METHODS.get(method);
    const complete = result.resultType === undefined || result.resultType === 'complete';
    const hinted = complete && spec?.cacheable === true;
    // Cache hints only on cacheable core results. An extension's own results keep their fields,
    // as does a CreateTaskResult (Tasks extension), whose ttlMs is the task's lifetime.
    const dropHints = !hinted && spec !== undefined && result.resultType !== 'task';
    const out = copyFields(result, dropHints ? notCacheHint : undefined);
    if (out.resultType === undefined) out.resultType = 'complete';
    if (hinted) {
      if (out.ttlMs === undefined) out.ttlMs = shaping.ttlMs;
      if (out.cacheScope === undefined) out.cacheScope = shaping.cacheScope;
    }
    const meta = result._meta as Record<string, unknown> | undefined;
    const shapedMeta: Record<string, unknown> = meta ? copyFields(meta) : {};
    shapedMeta[META.serverInfo] = shaping.serverInfo;
    out._meta = shapedMeta;
    return out;
  },
  shapeError: (error) => errorObject(error),
} satisfies Dialect);
