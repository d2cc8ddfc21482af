import { config } from "#core/config";
import { UnauthorizedError } from "#core/errors";
import { resolveApiKey } from "#core/organizations/key-resolution";
import { organizationProfile } from "#core/organizations/profile";
import { permissions, rolePermissions, type Actor, type Permission } from "#core/auth/actor";
import { standingOf } from "#core/users/standing";

/** A bearer credential resolved to an actor, or the reason it was not. */
export type BearerResolution =
  | { ok: true; actor: Actor }
  | {
      ok: false;
      error: UnauthorizedError;
      /** a user JWT that carries no organization */
      userWithoutOrganization?: string;
      /** …and who it is, for the one route such a token may call (`POST /invitations/accept`) */
      identity?: SignedInIdentity;
    };

/** A verified user token's person, before they belong to an organization. */
export interface SignedInIdentity {
  subject: string;
  email?: string;
  name?: string;
}

type Verifier = { verify(token: string): Promise<Record<string, unknown>> };
let verifier: Verifier | undefined;

/** aws-jwt-verify is loaded with the first user token: API keys, source keys and public routes never need it. */
async function jwtVerifier(): Promise<Verifier> {
  if (!verifier) {
    const { JwtVerifier } = await import("aws-jwt-verify/jwt-verifier");
    // Issuer, audience (the client the token was issued to), signature and expiry are all checked.
    const audience = config.jwtAudience;
    const issuers = config.jwtIssuers.map((issuer) => ({ issuer, audience, jwksUri: config.jwksUrl }));
    const created = JwtVerifier.create(issuers as [(typeof issuers)[number], ...typeof issuers]);
    // aws-jwt-verify only fetches JWKS over https; the local stack hands its JWKS over directly.
    const preloaded = config.jwksJson;
    if (preloaded) for (const { issuer } of issuers) created.cacheJwks(JSON.parse(preloaded), issuer);
    verifier = created as unknown as Verifier;
  }
  return verifier;
}

/**
 * RFC 7515 §4.1.11: a token whose header names critical extensions the recipient does not understand must be
 * refused. This API understands none, so any `crit` is refused (aws-jwt-verify does not look at it).
 */
function hasCriticalExtensions(token: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.split(".", 1)[0]!, "base64url").toString("utf8"));
    return typeof header === "object" && header !== null && "crit" in header;
  } catch {
    return false; // not a JWT at all: the verifier refuses it
  }
}

/**
 * Resolves `Authorization: Bearer <token>`: an organization API key (`sk_…`,
 * one DynamoDB read) or a user JWT verified against the configured issuer and
 * JWKS, issued to one of the configured clients (`aud`). Organization and role
 * come from the claims `org_id` and `role` (top level, under OpenAuth's
 * `properties`, or Cognito's `custom:org_id` / `custom:role`).
 */
export async function resolveBearer(authorization: string | undefined): Promise<BearerResolution> {
  if (!authorization) return failure("Credentials are required.", "missing");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return failure("The Authorization header must be 'Bearer <token>'.", "invalid");
  const token = match[1]!;

  if (token.startsWith("sk_")) {
    const known = cachedApiKey.peek(token);
    if (known === unknownCredential) return failure("The API key is not valid.", "invalid");
    const record = known ?? (await cachedApiKey.get(token));
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

  // RFC 7515 4.1.11: a header naming extensions in `crit` must be refused by a verifier that implements none of them.
  if (hasCriticalExtensions(token))
    return failure("The access token names critical header extensions this API does not implement.", "invalid");
  let claims: Record<string, unknown>;
  try {
    claims = await (await jwtVerifier()).verify(token);
  } catch {
    return failure("The access token is not valid or has expired.", "invalid");
  }
  // aws-jwt-verify checks `exp` only when present: a token that never expires would outlive any revocation.
  if (typeof claims.exp !== "number") return failure("The access token has no expiry (exp).", "invalid");
  const userId = typeof claims.sub === "string" ? claims.sub : undefined;
  if (!userId) return failure("The access token has no subject.", "invalid");
  const organizationId = stringClaim(claims, "org_id");
  if (!organizationId) {
    const identity = { subject: userId, email: stringClaim(claims, "email"), name: stringClaim(claims, "name") };
    return {
      ...failure("The access token belongs to no organization.", "invalid"),
      userWithoutOrganization: userId,
      identity,
    };
  }
  // A token naming an organization that does not exist (deleted, or a claim set by mistake) reaches no data.
  if (!(await organizationExists(organizationId)))
    return failure("The access token's organization does not exist.", "invalid");
  // The stored user decides, not the token: a deactivated user is refused and a changed role applies within seconds.
  const standing = await standingOf(organizationId, userId);
  if (!standing?.active) return failure("The user is not an active member of the organization.", "invalid");
  return {
    ok: true,
    actor: {
      organizationId,
      kind: "user",
      userId,
      role: standing.role,
      permissions: rolePermissions[standing.role],
      displayName: standing.name,
      email: standing.email,
    },
  };
}

/**
 * Resolved API keys are kept in the warm Lambda instance for `apiKeyCacheMs`,
 * so a busy integration costs one read per key every few seconds instead of one
 * per request, and a revoked or rotated-out key is refused within those seconds
 * on every instance. Known organizations (which are never deleted) are kept
 * for `warmCacheMs`. Unknown API keys are remembered
 * too, for `unknownCredentialMs`, so a flood of bad keys costs one read each
 * (keys are random: no real key is ever refused because of it).
 */
const warmCacheMs = 60_000;
export const apiKeyCacheMs = 5_000;
export const unknownCredentialMs = 30_000;

/** What a warm cache knows of a credential it saw refused. */
export const unknownCredential = Symbol("unknown credential");

/**
 * A bounded in-memory cache of credential lookups: hits for `hitMs`, and misses
 * (when `missMs` is set) as `unknownCredential`, in separate maps so a flood of
 * distinct bad keys never evicts a good one. `peek` answers without I/O: the
 * value, `unknownCredential`, or undefined when a lookup is needed.
 */
export function warmCredentialCache<T>(
  load: (key: string) => Promise<T | undefined>,
  options: { hitMs: number; missMs?: number },
) {
  const hits = boundedExpiringMap<T>(1000);
  const misses = boundedExpiringMap<true>(10_000);
  const peek = (key: string): T | typeof unknownCredential | undefined =>
    misses.get(key) ? unknownCredential : hits.get(key);
  const rememberUnknown = (key: string): void => {
    if (options.missMs) misses.set(key, true, options.missMs);
  };
  return {
    peek,
    async get(key: string): Promise<T | undefined> {
      const known = peek(key);
      if (known !== undefined) return known === unknownCredential ? undefined : known;
      const value = await load(key);
      if (value !== undefined) hits.set(key, value, options.hitMs);
      else rememberUnknown(key);
      return value;
    },
    /** Records a refusal found by a load that judged more than existence (a source key with the wrong secret). */
    rememberUnknown,
  };
}

/** Insertion-ordered map whose entries expire; the oldest goes first when full. */
function boundedExpiringMap<T>(maxEntries: number) {
  const entries = new Map<string, { value: T; expiresAt: number }>();
  return {
    get(key: string): T | undefined {
      const entry = entries.get(key);
      if (entry && entry.expiresAt > Date.now()) return entry.value;
      if (entry) entries.delete(key);
      return undefined;
    },
    set(key: string, value: T, ttlMs: number): void {
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt: Date.now() + ttlMs });
    },
  };
}

// Marked pure, as the source-key cache in credentials.ts: a bundle that reads no credential (publicEndpoint) leaves
// the caches and the lookups behind them out.
const cachedApiKey = /* @__PURE__ */ warmCredentialCache((token) => resolveApiKey(token), {
  hitMs: apiKeyCacheMs,
  missMs: unknownCredentialMs,
});
const knownOrganizations = /* @__PURE__ */ warmCredentialCache(
  async (organizationId) => ((await organizationProfile(organizationId)) ? true : undefined),
  {
    hitMs: warmCacheMs,
  },
);
const organizationExists = (organizationId: string) => knownOrganizations.get(organizationId);

/** A claim at the top level, under OpenAuth's `properties`, or Cognito's `custom:` name. */
function stringClaim(claims: Record<string, unknown>, name: string): string | undefined {
  const properties =
    typeof claims.properties === "object" && claims.properties !== null
      ? (claims.properties as Record<string, unknown>)
      : {};
  const value = claims[name] ?? properties[name] ?? claims[`custom:${name}`];
  return typeof value === "string" && value !== "" ? value : undefined;
}

function failure(message: string, reason: "missing" | "invalid"): { ok: false; error: UnauthorizedError } {
  return { ok: false, error: new UnauthorizedError(message, reason) };
}
