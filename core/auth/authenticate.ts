import { JwtVerifier } from "aws-jwt-verify";
import { config } from "#core/config";
import { UnauthorizedError } from "#core/errors";
import { Organizations } from "#core/organizations/index";
import { permissions, rolePermissions, roles, type Actor, type Permission, type Role } from "#core/auth/actor";

/** A bearer credential resolved to an actor, or the reason it was not. */
export type BearerResolution =
  | { ok: true; actor: Actor }
  | { ok: false; error: UnauthorizedError; /** a user JWT that carries no organization */ userWithoutOrganization?: string };

type Verifier = { verify(token: string): Promise<Record<string, unknown>> };
let verifier: Verifier | undefined;

function jwtVerifier(): Verifier {
  if (!verifier) {
    const created = JwtVerifier.create({ issuer: config.jwtIssuer, audience: null, jwksUri: config.jwksUrl });
    // aws-jwt-verify only fetches JWKS over https; the local stack hands its JWKS over directly.
    const preloaded = config.jwksJson;
    if (preloaded) created.cacheJwks(JSON.parse(preloaded));
    verifier = created as unknown as Verifier;
  }
  return verifier;
}

/**
 * Resolves `Authorization: Bearer <token>`: an organization API key (`sk_…`,
 * one DynamoDB read) or a user JWT verified against the configured issuer and
 * JWKS. Organization and role come from the claims `org_id` and `role` (or
 * Cognito's `custom:org_id` / `custom:role`).
 */
export async function resolveBearer(authorization: string | undefined): Promise<BearerResolution> {
  if (!authorization) return failure("Credentials are required.", "missing");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return failure("The Authorization header must be 'Bearer <token>'.", "invalid");
  const token = match[1]!;

  if (token.startsWith("sk_")) {
    const record = await cachedApiKey(token);
    if (!record) return failure("The API key is not valid.", "invalid");
    return {
      ok: true,
      actor: {
        organizationId: record.organizationId,
        kind: "apiKey",
        apiKeyId: record.keyId,
        permissions: new Set(record.scopes.filter((scope): scope is Permission => permissions.includes(scope))),
        displayName: record.name,
      },
    };
  }

  let claims: Record<string, unknown>;
  try {
    claims = await jwtVerifier().verify(token);
  } catch {
    return failure("The access token is not valid or has expired.", "invalid");
  }
  // aws-jwt-verify checks `exp` only when present: a token that never expires would outlive any revocation.
  if (typeof claims.exp !== "number") return failure("The access token has no expiry (exp).", "invalid");
  const userId = typeof claims.sub === "string" ? claims.sub : undefined;
  if (!userId) return failure("The access token has no subject.", "invalid");
  const organizationId = stringClaim(claims, "org_id");
  if (!organizationId) {
    return { ...failure("The access token belongs to no organization.", "invalid"), userWithoutOrganization: userId };
  }
  // A token naming an organization that does not exist (deleted, or a claim set by mistake) reaches no data.
  if (!(await organizationExists(organizationId))) return failure("The access token's organization does not exist.", "invalid");
  const roleClaim = stringClaim(claims, "role");
  const role: Role = roles.includes(roleClaim as Role) ? (roleClaim as Role) : "member";
  return {
    ok: true,
    actor: {
      organizationId,
      kind: "user",
      userId,
      role,
      permissions: rolePermissions[role],
      displayName: stringClaim(claims, "name") ?? userId,
      email: stringClaim(claims, "email"),
    },
  };
}

/**
 * Resolved API keys and known organizations are kept in the warm Lambda
 * instance for a short time, so a busy integration costs one read per minute
 * instead of one per request. Only hits are cached (a new key or organization
 * works at once); a revoked key keeps working on an instance that already
 * cached it for at most `warmCacheMs`.
 */
const warmCacheMs = 60_000;

function hitsOnlyCache<T>(load: (key: string) => Promise<T | undefined>): (key: string) => Promise<T | undefined> {
  const entries = new Map<string, { value: T; expiresAt: number }>();
  return async (key) => {
    const now = Date.now();
    const cached = entries.get(key);
    if (cached && cached.expiresAt > now) return cached.value;
    const value = await load(key);
    if (value !== undefined) {
      if (entries.size >= 1000) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt: now + warmCacheMs });
    }
    return value;
  };
}

const cachedApiKey = hitsOnlyCache((token) => Organizations.resolveApiKey(token));
const organizationExists = hitsOnlyCache(async (organizationId) => ((await Organizations.fromId(organizationId)) ? true : undefined));

function stringClaim(claims: Record<string, unknown>, name: string): string | undefined {
  const value = claims[name] ?? claims[`custom:${name}`];
  return typeof value === "string" && value !== "" ? value : undefined;
}

function failure(message: string, reason: "missing" | "invalid"): { ok: false; error: UnauthorizedError } {
  return { ok: false, error: new UnauthorizedError(message, reason) };
}
