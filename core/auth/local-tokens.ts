import { importJWK, SignJWT, type JWK } from "jose";
import type { Role } from "#core/auth/actor";

/** The dashboard's OAuth client id: the audience the API accepts user tokens for (JWT_AUDIENCE). */
export const dashboardClientId = "dashboard";

export interface UserTokenClaims {
  organizationId: string;
  userId: string;
  role: Role;
  name: string;
  email?: string;
}

/**
 * Signs a user access token with the local stack's key. Only the local stack
 * and tests have a private key; deployed stages verify tokens of a real
 * identity provider and never sign.
 */
export async function signUserToken(
  claims: UserTokenClaims,
  signing: {
    privateJwk: JWK;
    issuer: string;
    expiresIn?: string;
    /** The client (`aud`); the dashboard's unless a test names another. */ audience?: string;
  },
): Promise<string> {
  const key = await importJWK(signing.privateJwk, "RS256");
  return new SignJWT({
    org_id: claims.organizationId,
    role: claims.role,
    name: claims.name,
    ...(claims.email ? { email: claims.email } : {}),
  })
    .setProtectedHeader({ alg: "RS256", kid: signing.privateJwk.kid, typ: "JWT" })
    .setSubject(claims.userId)
    .setIssuer(signing.issuer)
    .setAudience(signing.audience ?? dashboardClientId)
    .setIssuedAt()
    .setExpirationTime(signing.expiresIn ?? "12h")
    .sign(key);
}
