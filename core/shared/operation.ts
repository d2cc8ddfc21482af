import * as v from "valibot";
import type { Actor, Permission } from "#core/auth/actor";
import { ForbiddenError, ValidationError } from "#core/errors";
import { toFieldErrors } from "#core/shared/validation";

/** A domain operation that carries the schema and the permission it checks, for callers to reuse rather than restate. */
export type DomainOperation<TSchema extends v.GenericSchema, TResult, TRest extends unknown[]> = ((
  actor: Actor,
  input: v.InferInput<TSchema>,
  ...rest: TRest
) => Promise<TResult>) & { readonly input: TSchema; readonly permission: Permission };

/**
 * Declares a domain operation that checks its own permission and validates its
 * own input with the schema it exposes (terminal's `fn(schema, impl)`): the
 * HTTP edge, an A2A skill and an automation action all get the same checks
 * and the same field errors, whichever way they call it. The edge has already
 * parsed its body with the same schema, which parses its own output unchanged.
 */
/* @__NO_SIDE_EFFECTS__ */
export function domainOperation<TSchema extends v.GenericSchema, TResult, TRest extends unknown[]>(
  spec: { input: TSchema; permission: Permission },
  implementation: (actor: Actor, input: v.InferOutput<TSchema>, ...rest: TRest) => Promise<TResult>,
): DomainOperation<TSchema, TResult, TRest> {
  const run = async (actor: Actor, input: v.InferInput<TSchema>, ...rest: TRest): Promise<TResult> => {
    if (!actor.permissions.has(spec.permission))
      throw new ForbiddenError(`This operation needs the '${spec.permission}' permission.`);
    const parsed = v.safeParse(spec.input, input);
    if (!parsed.success)
      throw new ValidationError("The input is not valid; see errors for each field.", toFieldErrors(parsed.issues));
    return implementation(actor, parsed.output, ...rest);
  };
  return Object.assign(run, { input: spec.input, permission: spec.permission });
}
