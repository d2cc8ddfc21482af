import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { environmentNames } from "#stacks/definitions";
import { dashboardClientId } from "#core/auth/local-tokens";

/** The local stack's own identity provider and signing key; generated once per state folder. */
export interface LocalSecrets {
  /** Signs user JWTs (RS256); carries `kid`. */
  privateJwk: JWK;
  /** The public key set served at `/.well-known/jwks.json` and preloaded as JWKS_JSON. */
  jwks: { keys: JWK[] };
  issuer: string;
  /** Continuation-token signing key (32 random bytes, base64url). */
  tokenSigningKey: string;
}

/** Stable across restarts and ports, so tokens in credentials.json stay valid. */
const localIssuer = "http://127.0.0.1/local-issuer";
/** Never fetched (JWKS_JSON preloads the key set); aws-jwt-verify insists on an https URL. */
const localJwksUrl = "https://local.invalid/.well-known/jwks.json";

/** Reads `<stateDir>/secrets.json`, creating it (mode 0600) on first use. */
export async function loadOrCreateSecrets(stateDir: string): Promise<LocalSecrets> {
  const file = join(stateDir, "secrets.json");
  if (existsSync(file)) return JSON.parse(await readFile(file, "utf8")) as LocalSecrets;
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomUUID();
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const secrets: LocalSecrets = {
    privateJwk,
    jwks: { keys: [publicJwk] },
    issuer: localIssuer,
    tokenSigningKey: randomBytes(32).toString("base64url"),
  };
  await mkdir(stateDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: "wx" }).catch(
    async (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    },
  );
  return JSON.parse(await readFile(file, "utf8")) as LocalSecrets;
}

/**
 * The settings functions read for auth and paging. User tokens of two issuers are accepted locally: the
 * identity provider the dashboard signs in with (same as deployed) and, for tests and the operator CLI,
 * tokens this stack signs itself. Both must be issued to the dashboard's client.
 */
export function secretsEnv(
  secrets: LocalSecrets,
  identity?: { url: string; jwks: { keys: unknown[] } },
): Record<string, string> {
  return {
    [environmentNames.jwtIssuer]: [secrets.issuer, ...(identity ? [identity.url] : [])].join(" "),
    [environmentNames.jwtAudience]: dashboardClientId,
    [environmentNames.jwksUrl]: localJwksUrl,
    [environmentNames.jwksJson]: JSON.stringify({ keys: [...secrets.jwks.keys, ...(identity?.jwks.keys ?? [])] }),
    [environmentNames.tokenSigningKey]: secrets.tokenSigningKey,
  };
}
