import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { sourcePermissions, type Actor } from "#core/auth/actor";
import {
  resolveBearer,
  type SignedInIdentity,
  unknownCredential,
  unknownCredentialMs,
  warmCredentialCache,
} from "#core/http/authenticate";
import type { RateLimitPartition } from "#core/db/keys";
import { ForbiddenError, UnauthorizedError } from "#core/errors";
import type { AuthMode, Operation } from "#core/http/operation";
import { resolveSourceKey } from "#core/sources/key-resolution";

/** Headers that carry a source key on the intake routes (the query parameters `sourceId` / `apiKey` work too). */
export const sourceIdHeader = "x-source-id";
export const sourceKeyHeader = "x-source-key";

/** The outcome of reading a request's credential: who it is (if anyone) and which rate-limit partition it counts against. */
export interface Credentials {
  actor?: Actor;
  partition: RateLimitPartition;
  /** Set when the credential is missing or invalid for an operation that needs one. */
  error?: UnauthorizedError;
  /** The person of a verified user token, with or without an organization (`identity` operations). */
  identity?: SignedInIdentity;
}

/**
 * Reads the credential an operation accepts. Partitions follow spec section 8:
 * an organization credential counts against its business partition, a user
 * token without an organization against the user, and everything else
 * (public routes, missing or invalid credentials) against the caller's IP.
 */
export async function resolveCredentials(auth: AuthMode, event: APIGatewayProxyEventV2): Promise<Credentials> {
  if (auth === "public") return publicCredentials(event);
  const ipPartition = ipPartitionOf(event);
  if (auth === "bearerOrSource" && hasSourceCredentials(event)) return resolveSource(event, ipPartition);

  const bearer = await resolveBearer(event.headers?.authorization);
  if (bearer.ok) {
    const actor = { ...bearer.actor, origin: originOf(event) };
    const identity =
      actor.kind === "user" && actor.userId
        ? { subject: actor.userId, email: actor.email, name: actor.displayName }
        : undefined;
    return { actor, identity, partition: { kind: "business", organizationId: actor.organizationId } };
  }
  // Authenticated, but no organization to act in: counts as the user, then fails authorization (403) unless the
  // operation takes an identity (accepting an invitation).
  if (bearer.userWithoutOrganization)
    return { identity: bearer.identity, partition: { kind: "user", id: bearer.userWithoutOrganization } };
  return { partition: ipPartition, error: bearer.error };
}

/** A public operation reads no credential: its request counts against the caller's IP. */
export async function publicCredentials(event: APIGatewayProxyEventV2): Promise<Credentials> {
  return { partition: ipPartitionOf(event) };
}

/**
 * Why an authenticated request may not call an operation (403), or undefined when it may: an organization's
 * credential needs the operation's permission; an `identity` operation needs only a signed-in person.
 */
export function authorizationRefusal(
  operation: Pick<Operation, "auth" | "permission">,
  credentials: Credentials | undefined,
): ForbiddenError | undefined {
  if (operation.auth === "public") return undefined;
  if (operation.auth === "identity")
    return credentials?.identity ? undefined : new ForbiddenError("This operation needs a user's access token.");
  const actor = credentials?.actor;
  if (!actor) return new ForbiddenError("The credential is not associated with an organization.");
  if (operation.permission && !actor.permissions.has(operation.permission)) {
    return new ForbiddenError(`This operation needs the '${operation.permission}' permission.`);
  }
  return undefined;
}

/** Where a request came from, for the audit log. */
function originOf(event: APIGatewayProxyEventV2): { ip: string; userAgent?: string } {
  const userAgent = event.requestContext.http.userAgent || event.headers?.["user-agent"];
  return { ip: event.requestContext.http.sourceIp, ...(userAgent ? { userAgent: userAgent.slice(0, 512) } : {}) };
}

export function ipPartitionOf(event: APIGatewayProxyEventV2): RateLimitPartition {
  return { kind: "ip", id: event.requestContext.http.sourceIp };
}

/**
 * Source id and key pairs that matched no source, remembered briefly in the
 * warm instance so a flood of bad keys costs one read each. Only "unknown" is
 * remembered: a disabled source or a refused address can change at any time.
 */
const unknownSourceKeys = /* @__PURE__ */ warmCredentialCache<never>(async () => undefined, {
  hitMs: 0,
  missMs: unknownCredentialMs,
});

function sourceCredentials(event: APIGatewayProxyEventV2): { sourceId?: string; apiKey?: string } {
  const query = event.queryStringParameters ?? {};
  const headers = event.headers ?? {};
  return { sourceId: query.sourceId ?? headers[sourceIdHeader], apiKey: query.apiKey ?? headers[sourceKeyHeader] };
}

function hasSourceCredentials(event: APIGatewayProxyEventV2): boolean {
  const { sourceId, apiKey } = sourceCredentials(event);
  return sourceId !== undefined || apiKey !== undefined;
}

/**
 * A source key (intake routes): a valid key of an enabled source, used from an
 * allowed address, acts as that source and counts against the organization's
 * business-intake partition; anything else is a 401 on the caller's IP (spec 8).
 */
async function resolveSource(event: APIGatewayProxyEventV2, ipPartition: RateLimitPartition): Promise<Credentials> {
  const { sourceId, apiKey } = sourceCredentials(event);
  if (!sourceId || !apiKey) {
    return {
      partition: ipPartition,
      error: new UnauthorizedError(
        "A source key needs both sourceId and apiKey (or X-Source-Id and X-Source-Key).",
        "missing",
      ),
    };
  }
  const pair = `${sourceId}\n${apiKey}`;
  // A key the instance has verified recently is answered from its cache, one it found unknown too; any other is read.
  const resolved =
    unknownSourceKeys.peek(pair) === unknownCredential
      ? ({ ok: false, reason: "unknown" } as const)
      : await resolveSourceKey(sourceId, apiKey, event.requestContext.http.sourceIp);
  if (!resolved.ok && resolved.reason === "unknown") unknownSourceKeys.rememberUnknown(pair);
  if (!resolved.ok) {
    const message = {
      unknown: "The source id and key do not match an existing source.",
      disabled: "The source is disabled.",
      ipNotAllowed: "The source does not accept leads from this address.",
    }[resolved.reason];
    return { partition: ipPartition, error: new UnauthorizedError(message, "invalid") };
  }
  const actor: Actor = {
    organizationId: resolved.organizationId,
    kind: "source",
    sourceId: resolved.source.id,
    source: resolved.source,
    permissions: sourcePermissions,
    displayName: resolved.source.name,
    origin: originOf(event),
  };
  return { actor, partition: { kind: "intake", organizationId: resolved.organizationId } };
}
