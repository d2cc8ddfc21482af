import { existsSync } from "node:fs";
import { join } from "node:path";
import { rolePermissions, type Actor, type Role } from "#core/auth/actor";
import { signUserToken } from "#core/auth/local-tokens";
import { Organizations } from "#core/organizations/index";
import { projectRoot } from "#local/paths";
import type { LocalSecrets } from "#local/secrets";
import { credentialsPath, readJson, writeJson, type LocalCredentials } from "#local/state";

/** The user every local development token is issued to. */
const developer = { userId: "local-developer", name: "Local Developer", email: "developer@example.com" } as const;

/** Local development tokens outlive a working day; deployed stages never sign tokens. */
const developerTokenLifetime = "30d";

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

interface SourcesModule {
  Sources: {
    create(actor: Actor, input: { name: string }): Promise<{ source: { id: string }; apiKey: string }>;
  };
}

/** Creates a lead source, or returns undefined while `core/sources` does not exist yet. */
export async function createSource(organizationId: string, name: string): Promise<{ sourceId: string; apiKey: string } | undefined> {
  if (!existsSync(join(projectRoot, "core", "sources", "index.ts"))) return undefined;
  const specifier = "#core/sources/index";
  const { Sources } = (await import(specifier)) as SourcesModule;
  const { source, apiKey } = await Sources.create(operatorActor(organizationId), { name });
  return { sourceId: source.id, apiKey };
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
export async function ensureDevelopmentCredentials(stateDir: string, baseUrl: string, secrets: LocalSecrets) {
  const file = credentialsPath(stateDir);
  const existing = await readJson<LocalCredentials>(file);
  let credentials: LocalCredentials;
  let created = false;
  if (existing && (await Organizations.fromId(existing.organizationId))) {
    credentials = { ...existing, baseUrl, userToken: await developerToken(existing.organizationId, secrets) };
    if (credentials.sourceId === null) {
      const source = await createSource(existing.organizationId, "Local development source");
      credentials = { ...credentials, sourceId: source?.sourceId ?? null, sourceApiKey: source?.apiKey ?? null };
    }
  } else {
    const { organization, apiKey } = await Organizations.create({ name: "Local development" });
    const source = await createSource(organization.id, "Local development source");
    credentials = {
      baseUrl,
      organizationId: organization.id,
      apiKey,
      userToken: await developerToken(organization.id, secrets),
      sourceId: source?.sourceId ?? null,
      sourceApiKey: source?.apiKey ?? null,
    };
    created = true;
  }
  await writeJson(file, credentials);
  return { file, credentials, created };
}
