import { copyFields } from '../dialects/projection.js';

/** What a context's `signal` is read from: an executor job or a LazySignal (its `signal` made when read). */
export interface SignalSource {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

const kJob = Symbol('snodo.job');
type WithJob = { [kJob]: SignalSource };

/**
 * One accessor shared by every context: an object keeps V8's fast properties with it, where an
 * object literal with a getter becomes a dictionary (about 1 KB and a microsecond per request).
 */
const JOB_SIGNAL: PropertyDescriptor = {
  get(this: WithJob) {
    // undefined only on a `contextForJob` context read before it got its job.
    return this[kJob]?.signal;
  },
  enumerable: true,
  configurable: true,
};

/**
 * Makes `target.signal` read `job.signal` when, and only when, something reads it: a request whose
 * handler never looks costs no AbortSignal. `target` must be the caller's own fresh object (a
 * dispatch or handler context); returns it.
 */
export function withJobSignal<T extends object>(target: T, job: SignalSource): T & SignalSource {
  (target as T & WithJob)[kJob] = job;
  return Object.defineProperty(target, 'signal', JOB_SIGNAL) as T & SignalSource;
}

/** The prototype of `jobContext`'s objects: their `signal` is JOB_SIGNAL, as withJobSignal's. */
const JOB_CONTEXT: object = Object.defineProperty({}, 'signal', JOB_SIGNAL);

/**
 * A fresh object whose `signal` reads `job.signal` when read, from its prototype rather than an
 * own accessor (`Object.defineProperty` per object costs about 0.2 µs). For the contexts core makes
 * and reads itself (the engine's dispatch context): a spread copy of one has no `signal`, so a
 * context handed to a handler, who may copy it, is made with `withJobSignal`.
 */
export function jobContext(job: SignalSource): { readonly signal: AbortSignal } {
  return withJob(contextForJob(), job) as { readonly signal: AbortSignal };
}

/**
 * `jobContext` for a context filled before its request is admitted (HTTP's): `withJob` gives it
 * its job when the job starts; its `signal` reads undefined until then.
 */
export function contextForJob(): { signal?: AbortSignal } {
  return Object.create(JOB_CONTEXT) as { signal?: AbortSignal };
}

/** Gives a `contextForJob` context its job; returns it. */
export function withJob<T extends { signal?: AbortSignal }>(context: T, job: SignalSource): T {
  (context as T & WithJob)[kJob] = job;
  return context;
}

/**
 * `{ ...context, [key]: value }` for a context whose `signal` may be a job's (`withJobSignal`): the
 * copy's `signal` reads the same job when read, where a spread reads it at once and so makes the
 * job's AbortSignal for every copy.
 */
export function withContextField<T extends object, K extends string, V>(
  context: T,
  key: K,
  value: V,
): T & { [P in K]: V } {
  const job = jobOf(context);
  if (job === undefined) return { ...context, [key]: value } as T & { [P in K]: V };
  const copy = withJobSignal(copyFields(context as Record<string, unknown>, notSignal), job);
  copy[key] = value;
  return copy as unknown as T & { [P in K]: V };
}

const notSignal = (key: string): boolean => key !== 'signal';

/** Whether `context`'s signal aborted, without making the AbortSignal of a job that has none yet. */
export function contextAborted(context: { readonly signal: AbortSignal }): boolean {
  const job = jobOf(context);
  return job === undefined ? context.signal.aborted : job.aborted;
}

/** The job a context made by `withJobSignal` reads its signal from; undefined for any other. */
export function jobOf(context: object): SignalSource | undefined {
  return (context as Partial<WithJob>)[kJob];
}
