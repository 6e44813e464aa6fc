import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { AppError } from '../errors.js';

/**
 * The payload schema of every job kind: kind -> TypeBox schema. The module that owns a kind declares
 * it once, next to its handler, with `defineOutboxJob` (and types `OutboxJobs` from the same schema by
 * declaration merging, outbox-types.ts). The worker's handlers (container.ts) are keyed by the same
 * kinds, and the worker runs no kind that has no schema here: kind -> schema + handler.
 *
 * A payload is checked twice. When it is enqueued (`enqueueOutbox`, `ctx.enqueueClaimed`): a payload
 * that does not match is a bug in the caller, refused at once with an AppError, and nothing is
 * written. When it is run: a stored payload that does not match (written by an older version, edited
 * by hand) is parked as failed with the reason, after that one attempt; a retry could not fix it.
 */
interface KindEntry {
  schema: TSchema;
  check: ReturnType<typeof Compile>;
}
const kinds = new Map<string, KindEntry>();

/** The marker at the start of `last_error` of a job parked for its payload (the CLI and the metrics count by it). */
export const INVALID_PAYLOAD = 'invalid payload';

/**
 * Declares a job kind's payload schema; called once at module load by the module that owns the kind.
 * Declaring a kind again with another schema is a programming error (two owners of one kind).
 */
export function defineOutboxJob<K extends string, S extends TSchema>(kind: K, schema: S): { kind: K; schema: S } {
  const known = kinds.get(kind);
  if (known && JSON.stringify(known.schema) !== JSON.stringify(schema))
    throw new Error(`outbox kind ${kind} is already declared with another payload schema`);
  if (!known) kinds.set(kind, { schema, check: Compile(schema) });
  return { kind, schema };
}

export function isDeclaredOutboxKind(kind: string): boolean {
  return kinds.has(kind);
}

/** Why `payload` is not a valid payload of `kind` (first few errors, with their paths), or null when it is. */
export function payloadProblem(kind: string, payload: unknown): string | null {
  const entry = kinds.get(kind);
  if (!entry) return `no payload schema is declared for kind ${kind}`;
  if (entry.check.Check(payload)) return null;
  const errors = [...entry.check.Errors(payload)].slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`);
  return errors.join('; ') || 'does not match the schema';
}

/** The enqueue-side check: a payload that does not match its kind's schema is a bug in the caller. */
export function assertOutboxPayload(kind: string, payload: unknown): void {
  const problem = payloadProblem(kind, payload);
  if (problem) throw new AppError('INTERNAL_ERROR', 500, `outbox job ${kind} refused: ${INVALID_PAYLOAD}: ${problem}`);
}
