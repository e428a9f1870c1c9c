/** Every default limit of core, named after what it bounds. */

/** Items per page of every list (`tools/list`, `prompts/list`, ...). */
export const DEFAULT_PAGE_SIZE = 100;
/** `ttlMs` of cacheable 2026-07-28 results when neither the server nor the item sets one. */
export const DEFAULT_TTL_MS = 60_000;
/** `cacheScope` default: private, so a list filtered per user is never shared across users by accident. */
export const DEFAULT_CACHE_SCOPE = 'private' as const;
/** Completion values per `completion/complete` result (the spec's maximum). */
export const MAX_COMPLETION_VALUES = 100;
