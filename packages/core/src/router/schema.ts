import { type SchemaDraft, Validator } from '@cfworker/json-schema';
import { definitionError } from '../errors/table.js';

/** The Standard Schema interface (zod 4, valibot, arktype), with its optional JSON Schema export. */
export interface StandardSchemaLike {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult | Promise<StandardResult>;
    readonly jsonSchema?:
      | { readonly input: (options: { target: string }) => Record<string, unknown> }
      | undefined;
  };
}

type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        // `| undefined` keeps zod and other Standard Schemas assignable under exactOptionalPropertyTypes.
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

export type JsonSchemaObject = Record<string, unknown>;
export type SchemaInput = StandardSchemaLike | JsonSchemaObject;

export interface SchemaIssue {
  /** JSON Pointer of the failing value inside the validated instance ('' for the root). */
  path: string;
  message: string;
}

export type Validation = { ok: true; value: unknown } | { ok: false; issues: SchemaIssue[] };

/** A schema ready for use: its JSON Schema form for the wire, and a validator. */
export interface CompiledSchema {
  readonly json: JsonSchemaObject;
  validate(value: unknown): Validation | Promise<Validation>;
}

export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  return typeof value === 'object' && value !== null && '~standard' in value;
}

/**
 * Compiles a Standard Schema (JSON Schema taken from its `~standard.jsonSchema` export) or a plain
 * JSON Schema object (validated with @cfworker/json-schema, which never fetches a network `$ref`).
 * `what` names the schema in definition errors.
 */
export function compileSchema(input: SchemaInput, what: string): CompiledSchema {
  if (isStandardSchema(input)) {
    const exporter = input['~standard'].jsonSchema;
    if (!exporter) {
      throw definitionError(
        `${what}: the ${input['~standard'].vendor} schema cannot export JSON Schema (~standard.jsonSchema); pass a JSON Schema object instead`,
      );
    }
    const json = exporter.input({ target: 'draft-2020-12' });
    const validate = input['~standard'].validate;
    return {
      json,
      validate(value) {
        const result = validate(value);
        return result instanceof Promise ? result.then(fromStandard) : fromStandard(result);
      },
    };
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw definitionError(`${what}: expected a JSON Schema object or a Standard Schema (e.g. zod 4)`);
  }
  const validator = new Validator(input as never, draftOf(input), false);
  return {
    json: input,
    validate(value) {
      const result = validator.validate(value);
      if (result.valid) return { ok: true, value };
      // cfworker reports a chain per failure; the deepest location says the most.
      const issues = result.errors
        .filter(
          (error) => error.keyword !== 'properties' && error.keyword !== 'items' && error.keyword !== '$ref',
        )
        .map((error) => ({ path: error.instanceLocation.replace(/^#/, ''), message: error.error }));
      return { ok: false, issues: issues.length > 0 ? issues : [{ path: '', message: 'Invalid value' }] };
    },
  };
}

function fromStandard(result: StandardResult): Validation {
  if (!result.issues) return { ok: true, value: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => ({
      path: pointer(
        (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment)),
      ),
      message: issue.message,
    })),
  };
}

/** A JSON Pointer (RFC 6901) of the given path segments. */
export function pointer(segments: readonly PropertyKey[]): string {
  return segments.map((segment) => `/${String(segment).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * Issues an error's `data.issues` carries: a report must not grow with the input (a 2 MB array of
 * wrong values would otherwise answer with tens of MB of issues).
 */
export const MAX_REPORTED_ISSUES = 20;

/** The first five issues as `path: message`, then how many more there are: for error messages. */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  const shown = issues
    .slice(0, 5)
    .map((issue) => `${issue.path || '/'}: ${issue.message}`)
    .join('; ');
  return issues.length > 5 ? `${shown}; and ${issues.length - 5} more` : shown;
}

function draftOf(schema: JsonSchemaObject): SchemaDraft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('draft-07')) return '7';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}
