import type { Actor } from "#core/auth/actor";
import * as Audit from "#core/audit/index";
import { DomainError } from "#core/errors";
import { HttpResponse } from "#core/http/response";

type Input = {
  actor: Actor;
  params?: unknown;
  body?: unknown;
  /** The id the request's Idempotency-Key fixed (core/http/endpoint.ts), when it has one. */
  resourceId?: () => Promise<string | undefined>;
};
type Fields = Record<string, unknown>;

/** What an audited change is: its action, the resource type, and how to read the resource before the change. */
export interface AuditSpec<TInput extends Input> {
  action: string;
  resourceType: string;
  /** The resource as the API shows it before the change (absent for a create); a resource not found is none. */
  before?: (input: TInput) => Promise<unknown>;
  /** The resource id, when neither the answer nor the path's `id` has it. */
  idOf?: (input: TInput, before: Fields | undefined, after: Fields | undefined) => string | undefined;
}

/**
 * Wraps a handler's implementation of a settings change (automations, numbers, sources, webhook endpoints,
 * suppressions, messaging and wallet settings) so the audit log records it: who and from where (the actor), and the
 * changed fields of the resource as the API shows it, before (read first) and after (the answer), credentials
 * redacted. Users and keys record their own entries inside their transactions (core/users, core/organizations).
 */
export function audited<TInput extends Input, TResult>(
  spec: AuditSpec<TInput>,
  implementation: (input: TInput) => Promise<TResult>,
) {
  return async (input: TInput): Promise<TResult> => {
    const before = spec.before ? asFields(await spec.before(input).catch(notFoundAsNone)) : undefined;
    const result = await implementation(input);
    const after = asFields(result instanceof HttpResponse ? result.body : result);
    const id =
      spec.idOf?.(input, before, after) ?? idIn(after) ?? idIn(before) ?? idIn(input.params as Fields | undefined);
    // A keyed request's entry is named by the id its key fixed: the retry after a crash (which answers the stored
    // resource) writes the entry if the first request died before it, and never a second one.
    const entryId = await input.resourceId?.();
    await Audit.record(
      input.actor,
      { action: spec.action, resourceType: spec.resourceType, resourceId: id, before, after },
      entryId ? { entryId } : {},
    );
    return result;
  };
}

function notFoundAsNone(error: unknown): undefined {
  if (error instanceof DomainError && error.code === "not_found") return undefined;
  throw error;
}

function asFields(value: unknown): Fields | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;
}

/** The resource's id in an answer or a path: its own, or that of the one resource it wraps (`{ endpoint, secret }`). */
function idIn(fields: Fields | undefined): string | undefined {
  const id = fields?.id ?? fields?.phoneNumberId ?? fields?.phoneNumber ?? fields?.phone;
  if (typeof id === "string") return id;
  const wrapped = Object.values(fields ?? {}).filter((value) => asFields(value)?.id !== undefined);
  return wrapped.length === 1 ? idIn(asFields(wrapped[0])) : undefined;
}
