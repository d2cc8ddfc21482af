import { parseArgs } from "node:util";
import { roles, type Role } from "#core/auth/actor";
import { signUserToken } from "#core/auth/local-tokens";
import { Organizations } from "#core/organizations/index";
import { environmentNames, table } from "#stacks/definitions";
import { createSource, developerTokenLifetime } from "#local/provision";
import { loadOrCreateSecrets } from "#local/secrets";
import { defaultStateDir, readStackState } from "#local/state";

const usage = `Operator CLI: npm run admin -- <command> [--flags]

Commands (output is JSON):
  create-org --name NAME                              new organization and its first sk_ API key
  create-user-token --org ID --user ID --role ROLE --name NAME [--email EMAIL]
                                                      user JWT signed with the local key (local stack only)
  create-source --org ID --name NAME                  new lead source: sourceId and apiKey
  list-orgs                                           every organization

Target: the running local stack (npm start) by default. With --stage NAME, a
deployed stage through your AWS credentials; the table name comes from
TABLE_NAME or, under \`npx sst shell --stage NAME\`, from the linked table.`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: "string" },
    org: { type: "string" },
    user: { type: "string" },
    role: { type: "string" },
    email: { type: "string" },
    stage: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});

class UsageError extends Error {}

function required(flag: keyof typeof values): string {
  const value = values[flag];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${flag} is required`);
  return value;
}

/** Points core's clients at the target: the local stack's emulators, or a deployed stage's table. */
async function useTarget(): Promise<void> {
  if (values.stage) {
    delete process.env[environmentNames.dynamodbEndpoint];
    delete process.env[environmentNames.sqsEndpoint];
    const linked = process.env[`SST_RESOURCE_${table.name}`];
    const tableName = process.env[environmentNames.tableName] ?? (linked ? (JSON.parse(linked) as { name?: string }).name : undefined);
    if (!tableName) {
      throw new UsageError(
        `No table for stage ${values.stage}: set TABLE_NAME, or run under \`npx sst shell --stage ${values.stage} -- npm run admin -- …\``,
      );
    }
    process.env[environmentNames.tableName] = tableName;
    return;
  }
  const state = await readStackState(defaultStateDir);
  if (!state) throw new UsageError("The local stack is not running: start it with `npm start` (or pass --stage NAME)");
  Object.assign(process.env, state.env);
}

async function run(command: string | undefined): Promise<unknown> {
  switch (command) {
    case "create-org": {
      const name = required("name");
      await useTarget();
      const { organization, apiKey } = await Organizations.create({ name });
      return { organizationId: organization.id, name: organization.name, createdAt: organization.createdAt, apiKey };
    }
    case "create-user-token": {
      if (values.stage) throw new UsageError("User tokens are signed only by the local stack; a deployed stage trusts its identity provider");
      const role = required("role");
      if (!roles.includes(role as Role)) throw new UsageError(`--role must be one of ${roles.join(", ")}`);
      const claims = {
        organizationId: required("org"),
        userId: required("user"),
        role: role as Role,
        name: required("name"),
        ...(values.email ? { email: values.email } : {}),
      };
      const secrets = await loadOrCreateSecrets(defaultStateDir);
      const token = await signUserToken(claims, { privateJwk: secrets.privateJwk, issuer: secrets.issuer, expiresIn: developerTokenLifetime });
      return { token, ...claims };
    }
    case "create-source": {
      const organizationId = required("org");
      const name = required("name");
      await useTarget();
      if (!(await Organizations.fromId(organizationId))) throw new UsageError(`No organization ${organizationId}`);
      return { organizationId, ...(await createSource(organizationId, name)) };
    }
    case "list-orgs":
      await useTarget();
      return Organizations.list();
    default:
      throw new UsageError(command ? `Unknown command ${command}` : "A command is required");
  }
}

if (values.help) {
  console.log(usage);
} else {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  try {
    console.log(JSON.stringify(await run(positionals[0]), null, 2));
  } catch (error) {
    console.error(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
    if (error instanceof UsageError) console.error(`\n${usage}`);
    process.exitCode = 1;
  }
}
