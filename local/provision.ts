import { randomBytes } from "node:crypto";
import { ScryptHasher } from "@openauthjs/openauth/provider/password";
import type { StorageAdapter } from "@openauthjs/openauth/storage/storage";
import { Storage } from "@openauthjs/openauth/storage/storage";
import { rolePermissions, type Actor, type Role } from "#core/auth/actor";
import { table } from "#core/db/items";
import { signUserToken } from "#core/auth/local-tokens";
import { Organizations } from "#core/organizations/index";
import { Sources } from "#core/sources/index";
import type { LocalSecrets } from "#local/secrets";
import { credentialsPath, readJson, writeJson, type LocalCredentials } from "#local/state";

/** The user every local development token is issued to, and who signs in to the dashboard with a password. */
const developer = { userId: "local-developer", name: "Local Developer", email: "owner@example.com" } as const;

export interface SignInUser {
  userId: string;
  organizationId: string;
  role: Role;
  name: string;
  email: string;
}

/**
 * Lets a person sign in: the user record `Users.forSignIn` finds (the placeholder's item until the Users
 * aggregate is merged) and, when given, a password in the identity provider's storage, hashed as its
 * password provider does.
 */
export async function registerSignInUser(user: SignInUser, identity: { storage: StorageAdapter; password?: string }): Promise<void> {
  const email = user.email.toLowerCase();
  await table.put({ Item: { pk: `SIGNIN#${email}`, sk: "USER", ...user, email } });
  if (identity.password) await Storage.set(identity.storage, ["email", email, "password"], await ScryptHasher().hash(identity.password));
}

/** A password for the printed development login: 18 random characters, never a guessable default. */
function newDevelopmentPassword(): string {
  return randomBytes(14).toString("base64url").slice(0, 18);
}

/** Local development tokens outlive a working day; deployed stages never sign tokens. */
export const developerTokenLifetime = "30d";

/** The owner acting for operator commands (creating sources) in an organization. */
export function operatorActor(organizationId: string, role: Role = "owner"): Actor {
  return {
    organizationId,
    kind: "user",
    userId: developer.userId,
    role,
    permissions: rolePermissions[role],
    displayName: developer.name,
    email: developer.email,
  };
}

/** Creates an enabled lead source with a fresh intake key (returned once). */
export async function createSource(organizationId: string, name: string): Promise<{ sourceId: string; apiKey: string }> {
  const { sourceId, apiKey } = await Sources.create(operatorActor(organizationId), { name });
  return { sourceId, apiKey };
}

/** A long-lived owner token for the local developer of an organization. */
export function developerToken(organizationId: string, secrets: LocalSecrets): Promise<string> {
  return signUserToken(
    { organizationId, role: "owner", ...developer },
    { privateJwk: secrets.privateJwk, issuer: secrets.issuer, expiresIn: developerTokenLifetime },
  );
}

/**
 * Makes sure `.local/credentials.json` names a development organization that
 * exists in the local table: provisions one on first start (or after the data
 * folder was wiped) and refreshes the base URL and user token on every start.
 */
export async function ensureDevelopmentCredentials(stateDir: string, baseUrl: string, secrets: LocalSecrets, identity: { storage: StorageAdapter }) {
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
  credentials.ownerLogin ??= { email: developer.email, password: newDevelopmentPassword() };
  await registerSignInUser(
    { userId: developer.userId, organizationId: credentials.organizationId, role: "owner", name: developer.name, email: developer.email },
    { storage: identity.storage, password: credentials.ownerLogin.password },
  );
  await writeJson(file, credentials);
  return { file, credentials, created };
}
