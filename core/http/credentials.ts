import type { APIGatewayProxyEventV2 } from "aws-lambda";
import type { Actor } from "#core/auth/actor";
import { resolveBearer } from "#core/auth/authenticate";
import type { RateLimitPartition } from "#core/db/keys";
import type { UnauthorizedError } from "#core/errors";
import type { AuthMode } from "#core/http/operation";

/** The outcome of reading a request's credential: who it is (if anyone) and which rate-limit partition it counts against. */
export interface Credentials {
  actor?: Actor;
  partition: RateLimitPartition;
  /** Set when the credential is missing or invalid for an operation that needs one. */
  error?: UnauthorizedError;
}

/**
 * Reads the credential an operation accepts. Partitions follow spec section 8:
 * an organization credential counts against its business partition, a user
 * token without an organization against the user, and everything else
 * (public routes, missing or invalid credentials) against the caller's IP.
 */
export async function resolveCredentials(auth: AuthMode, event: APIGatewayProxyEventV2): Promise<Credentials> {
  const ipPartition: RateLimitPartition = { kind: "ip", id: event.requestContext.http.sourceIp };
  if (auth === "public") return { partition: ipPartition };

  const bearer = await resolveBearer(event.headers?.authorization);
  if (bearer.ok) return { actor: bearer.actor, partition: { kind: "business", organizationId: bearer.actor.organizationId } };
  // Authenticated, but no organization to act in: counts as the user, then fails authorization (403).
  if (bearer.userWithoutOrganization) return { partition: { kind: "user", id: bearer.userWithoutOrganization } };
  return { partition: ipPartition, error: bearer.error };
}
