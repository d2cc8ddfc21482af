import { randomBytes } from "node:crypto";
import { ScryptHasher } from "@openauthjs/openauth/provider/password";
import type { StorageAdapter } from "@openauthjs/openauth/storage/storage";
import { Storage } from "@openauthjs/openauth/storage/storage";
import { rolePermissions, type Actor, type Role } from "#core/auth/actor";
import { signUserToken } from "#core/auth/local-tokens";
import * as Organizations from "#core/organizations/index";
import * as Sources from "#core/sources/index";
import * as Users from "#core/users/index";
import { ValidationError } from "#core/errors";
import { passwordProblem } from "#core/identity/password-rules";
import type { LocalSecrets } from "#local/secrets";
import { credentialsPath, readJson, writeJson, type LocalCredentials } from "#local/state";

/**
 * The development organization's owner: a stored user, so the local identity provider signs them in by this
 * e-mail (`Users.forSignIn`) and the API accepts their tokens (authentication reads the stored user).
 */
export const developmentOwner = { name: "Local Developer", email: "owner@example.com" } as const;

/** Gives a user's e-mail a password in the identity provider's storage, hashed as its password provider does. */
export async function registerPassword(storage: StorageAdapter, email: string, password: string): Promise<void> {
  await Storage.set(storage, ["email", email.toLowerCase(), "password"], await ScryptHasher().hash(password));
}

/**
 * The operator's `set-password`: gives an active user (a deployed organization's first owner, typically) a sign-in
 * password in the identity provider's storage. A given password is held to the sign-in rules; without one, a
 * generated one is answered once. The user signs in with it, and may change it with "Forgot password?".
 */
export async function setSignInPassword(
  storage: StorageAdapter,
  email: string,
  chosen?: string,
): Promise<{ email: string; organizationId: string; userId: string; password?: string }> {
  const user = await Users.forSignIn(email);
  if (!user)
    throw new ValidationError(
      `No active user has the e-mail ${email}: create it first (create-org --owner-email, or create-user).`,
    );
  if (chosen !== undefined) {
    const problem = passwordProblem(chosen);
    if (problem) throw new ValidationError(problem);
  }
  const password = chosen ?? newDevelopmentPassword();
  await registerPassword(storage, user.email, password);
  return {
    email: user.email,
    organizationId: user.organizationId,
    userId: user.userId,
    ...(chosen === undefined ? { password } : {}),
  };
}

/** A password for the printed development login: 18 random characters, never a guessable default. */
function newDevelopmentPassword(): string {
  return randomBytes(14).toString("base64url").slice(0, 18);
}

/** Local development tokens outlive a working day; deployed stages never sign tokens. */
export const developerTokenLifetime = "30d";

/** The operator acting for operator commands (creating sources) in an organization. */
export function operatorActor(organizationId: string, role: Role = "owner"): Actor {
  return {
    organizationId,
    kind: "apiKey",
    apiKeyId: "operator",
    role,
    permissions: rolePermissions[role],
    displayName: "Operator",
  };
}

/** Creates an enabled lead source with a fresh intake key (returned once). */
export async function createSource(
  organizationId: string,
  name: string,
): Promise<{ sourceId: string; apiKey: string }> {
  const { sourceId, apiKey } = await Sources.create(operatorActor(organizationId), { name });
  return { sourceId, apiKey };
}

/** The organization's development owner (`owner@example.com`), stored on first need. */
async function ensureDevelopmentOwner(
  organizationId: string,
): Promise<{ userId: string; name: string; email: string }> {
  const known = await Users.forSignIn(developmentOwner.email);
  if (known?.organizationId === organizationId) return known;
  // The address is taken by another organization (an older data folder): the owner gets a second address.
  const email = known ? `owner+${organizationId.toLowerCase()}@example.com` : developmentOwner.email;
  const again = known ? await Users.forSignIn(email) : undefined;
  if (again) return again;
  const user = await Users.add(organizationId, { email, name: developmentOwner.name, role: "owner" });
  return { userId: user.id, name: user.name, email: user.email };
}

/** A long-lived owner token for the development owner of an organization. */
export async function developerToken(organizationId: string, secrets: LocalSecrets): Promise<string> {
  const owner = await ensureDevelopmentOwner(organizationId);
  return signUserToken(
    { organizationId, role: "owner", ...owner },
    { privateJwk: secrets.privateJwk, issuer: secrets.issuer, expiresIn: developerTokenLifetime },
  );
}

/**
 * Makes sure `.local/credentials.json` names a development organization that
 * exists in the local table: provisions one on first start (or after the data
 * folder was wiped) and refreshes the base URL and user token on every start.
 */
export async function ensureDevelopmentCredentials(
  stateDir: string,
  baseUrl: string,
  secrets: LocalSecrets,
  identity: { storage: StorageAdapter },
) {
  const file = credentialsPath(stateDir);
  const existing = await readJson<LocalCredentials>(file);
  let credentials: LocalCredentials;
  let created = false;
  if (existing && (await Organizations.fromId(existing.organizationId))) {
    credentials = { ...existing, baseUrl, userToken: await developerToken(existing.organizationId, secrets) };
    if (credentials.sourceId === null) {
      const source = await createSource(existing.organizationId, "Local development source");
      credentials = { ...credentials, sourceId: source.sourceId, sourceApiKey: source.apiKey };
    }
  } else {
    const { organization, apiKey } = await Organizations.create({ name: "Local development" });
    const source = await createSource(organization.id, "Local development source");
    credentials = {
      baseUrl,
      organizationId: organization.id,
      apiKey,
      userToken: await developerToken(organization.id, secrets),
      sourceId: source.sourceId,
      sourceApiKey: source.apiKey,
    };
    created = true;
  }
  // The owner's dashboard login: the same password across restarts, registered again in case the data was wiped.
  const owner = await ensureDevelopmentOwner(credentials.organizationId);
  credentials.ownerLogin ??= { email: owner.email, password: newDevelopmentPassword() };
  await registerPassword(identity.storage, credentials.ownerLogin.email, credentials.ownerLogin.password);
  await writeJson(file, credentials);
  return { file, credentials, created };
}
