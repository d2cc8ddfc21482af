import { parseArgs } from "node:util";
import { roleNamed, roles, type Role } from "#core/auth/actor";
import * as Users from "#core/users/index";
import { signUserToken } from "#core/auth/local-tokens";
import * as Billing from "#core/billing/index";
import { type PriceOverrides } from "#core/billing/index";
import * as BillingHistory from "#core/billing/history";
import { paymentsToReview } from "#core/billing/payment-records";
import { ValidationError } from "#core/errors";
import * as Organizations from "#core/organizations/index";
import { backfillListIndexes } from "#core/db/backfill-list-indexes";
import { migrateKeys } from "#core/db/migrate-keys";
import { lastScheduleRuns } from "#core/maintenance/schedule-runs";
import { stuckWork } from "#core/maintenance/stuck-work";
import {
  queueDepth,
  redriveDeadLetters,
  summarizeDeadLetterQueue,
  summarizeDeadLetters,
} from "#core/queue/dead-letters";
import { environmentNames, queues, schedules, streamFailurePolicy, table, type QueueName } from "#stacks/definitions";
import { resourceName } from "#stacks/names";
import { projectRoot } from "#local/paths";
import { readJson } from "#local/state";
import { DynamoStorage } from "@openauthjs/openauth/storage/dynamo";
import type { StorageAdapter } from "@openauthjs/openauth/storage/storage";
import { identityStorageOptions } from "#local/identity";
import { createSource, developerTokenLifetime, setSignInPassword } from "#local/provision";
import { loadOrCreateSecrets } from "#local/secrets";
import { defaultStateDir, readStackState } from "#local/state";

/** The stream consumers' dead-letter queue, as the CLI names it (`dlq show streamFailures`). */
const streamFailures = streamFailurePolicy.deadLetterQueue.name;

const usage = `Operator CLI: npm run admin -- <command> [--flags]

Commands (output is JSON):
  create-org --name NAME [--owner-email EMAIL]        new organization, its first sk_ API key and (with an
                                                      e-mail) its owner, who signs in with that address
  create-user --org ID --email EMAIL --role ROLE [--name NAME]
                                                      a stored, active user (owner, admin or agent)
  set-password --email EMAIL [--password-stdin]      a sign-in password for an active user (a deployed
                                                      organization's first owner, before SES is set up): a
                                                      generated one is printed once, or the one read from stdin
  create-user-token --org ID --user ID --role ROLE --name NAME [--email EMAIL]
                                                      user JWT signed with the local key (local stack only);
                                                      the API accepts it only for a stored active user
  create-source --org ID --name NAME                  new lead source: sourceId and apiKey
  list-orgs                                           every organization
  billing-adjust --org ID --amount 1.23 --reason TEXT signed correction of the wallet (negative takes money;
                                                      never below the floor): the ledger entry and the wallet
  billing-suspend --org ID [--reason TEXT] [--off]    suspend the wallet (every send and call is refused), or
                                                      lift the suspension with --off: the wallet
  billing-prices --org ID [--sms-segment 0.01] [--mms-message 0.03] [--call-minute 0.02]
                 [--call-rounding PerStartedMinute|PerSecond] [--max-call-minutes 30]
                 [--phone-number-monthly 1.15]        override some prices of the organization (no price flag:
                                                      show them): the price list
  backfill-list-indexes [--org ID]                    once after deploying the list indexes (gsi4-gsi7): writes their
                                                      attributes onto leads, events, conversations and suppressions
                                                      stored before (a full table scan, or one organization's
                                                      items; safe to run again): items scanned and updated
  migrate-keys [--org ID]                             once after deploying issue 27's keys: moves leads, events,
                                                      lead claims, messages and provider-message pointers, runs
                                                      and run claims, analytics lead facts, count-once markers
                                                      and early responses, wallet holds, calls, conversations,
                                                      numbers, automations, billing items and suppression entries
                                                      from the organization's partition to their own, prices and
                                                      consent settings to their copies (one transaction each; a
                                                      full table scan, or one organization's partition; safe to
                                                      run again): scanned, moved
  backfill-usage [--org ID]                           once after deploying usage by kind (GET /billing/usage): counts
                                                      the charges written before it into the usage days (every
                                                      organization, or one; safe to run again): charges and days
  status                                              queue and dead-letter depths, stuck work (count, oldest
                                                      age), payments to review and the last run of every schedule
  payments-to-review                                  payment events not credited because they did not match
                                                      their top-up (session, status, amount, currency), oldest first
  dlq show QUEUE                                      summary of a queue's dead letters (types, oldest, samples)
  dlq redrive QUEUE                                   move a queue's dead letters back to it (the effect of
                                                      aws sqs start-message-move-task)
                                                      QUEUE: ${Object.keys(queues).join(", ")}
                                                      ${streamFailures}: table-stream batches that failed every
                                                      attempt (shard and sequence numbers; redrive explains
                                                      how to replay them from the stream)

Target: the running local stack (npm start) by default. With --stage NAME, a
deployed stage through your AWS credentials; the table name comes from
TABLE_NAME or, under \`npx sst shell --stage NAME\`, from the linked table.
--state-dir DIR targets a local stack started with another state folder.`;

/** `--amount -0.23`: parseArgs would read the negative number as a flag, so it is joined to its flag (`--amount=-0.23`). */
function joinNegativeValues(args: string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const next = args[index + 1];
    if (/^--[\w-]+$/.test(arg) && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      index++;
    } else joined.push(arg);
  }
  return joined;
}

const { positionals, values } = parseCommandLine();

/** The command line; a malformed one (unknown flag, missing value) is reported as JSON like every other error. */
function parseCommandLine() {
  try {
    return parseArgs({
      args: joinNegativeValues(process.argv.slice(2)),
      allowPositionals: true,
      options: {
        name: { type: "string" },
        org: { type: "string" },
        user: { type: "string" },
        role: { type: "string" },
        email: { type: "string" },
        "owner-email": { type: "string" },
        "password-stdin": { type: "boolean" },
        stage: { type: "string" },
        "state-dir": { type: "string" },
        amount: { type: "string" },
        reason: { type: "string" },
        off: { type: "boolean" },
        "sms-segment": { type: "string" },
        "mms-message": { type: "string" },
        "call-minute": { type: "string" },
        "call-rounding": { type: "string" },
        "max-call-minutes": { type: "string" },
        "phone-number-monthly": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
    console.error(`\n${usage}`);
    process.exit(1);
  }
}

class UsageError extends Error {}

function required(flag: keyof typeof values): string {
  const value = values[flag];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${flag} is required`);
  return value;
}

/** `--org`, checked against the target (after pointing core at it). */
async function existingOrganization(): Promise<string> {
  const organizationId = required("org");
  await useTarget();
  if (!(await Organizations.fromId(organizationId))) throw new UsageError(`No organization ${organizationId}`);
  return organizationId;
}

/** The price flags given, as core's price overrides (core validates them). */
function priceOverrides(): PriceOverrides {
  const flags = {
    smsSegment: values["sms-segment"],
    mmsMessage: values["mms-message"],
    callMinute: values["call-minute"],
    callRounding: values["call-rounding"],
    maxCallMinutes: values["max-call-minutes"] === undefined ? undefined : Number(values["max-call-minutes"]),
    phoneNumberMonthly: values["phone-number-monthly"],
  };
  return Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined)) as PriceOverrides;
}

/** Points core's clients at the target: the local stack's emulators, or a deployed stage's table. */
async function useTarget(): Promise<void> {
  if (values.stage) {
    delete process.env[environmentNames.dynamodbEndpoint];
    delete process.env[environmentNames.sqsEndpoint];
    const linked = process.env[`SST_RESOURCE_${table.name}`];
    const tableName =
      process.env[environmentNames.tableName] ?? (linked ? (JSON.parse(linked) as { name?: string }).name : undefined);
    if (!tableName) {
      throw new UsageError(
        `No table for stage ${values.stage}: set TABLE_NAME, or run under \`npx sst shell --stage ${values.stage} -- npm run admin -- …\``,
      );
    }
    process.env[environmentNames.tableName] = tableName;
    return;
  }
  const state = await readStackState(values["state-dir"] ?? defaultStateDir);
  if (!state) throw new UsageError("The local stack is not running: start it with `npm start` (or pass --stage NAME)");
  Object.assign(process.env, state.env);
}

/**
 * A work queue's URL on the target: the stack's variable (local stack, or set by
 * hand), the linked queue under \`sst shell\`, or the deploy's outputs file.
 */
async function queueUrl(name: QueueName): Promise<string> {
  const fromEnv = process.env[queues[name].urlEnv];
  if (fromEnv) return fromEnv;
  const linked = process.env[`SST_RESOURCE_${resourceName(name)}Queue`];
  const fromLink = linked ? (JSON.parse(linked) as { url?: string }).url : undefined;
  if (fromLink) return fromLink;
  const outputs = await readJson<Record<string, string>>(`${projectRoot}/.sst/outputs.json`);
  const fromOutputs = outputs?.[`${name}QueueUrl`];
  if (fromOutputs) return fromOutputs;
  throw new UsageError(
    `No URL for queue ${name}: set ${queues[name].urlEnv}, or run under \`npx sst shell --stage ${values.stage}\``,
  );
}

/** The stream consumers' DLQ URL on the target: its variable (local stack), the linked queue, or the outputs file. */
async function streamFailuresUrl(): Promise<string> {
  const { urlEnv } = streamFailurePolicy.deadLetterQueue;
  const linked = process.env[`SST_RESOURCE_${resourceName(streamFailures)}Dlq`];
  const outputs = await readJson<Record<string, string>>(`${projectRoot}/.sst/outputs.json`);
  const url =
    process.env[urlEnv] ??
    (linked ? (JSON.parse(linked) as { url?: string }).url : undefined) ??
    outputs?.[`${streamFailures}DlqUrl`];
  if (!url)
    throw new UsageError(
      `No URL for ${streamFailures}: set ${urlEnv}, or run under \`npx sst shell --stage ${values.stage}\``,
    );
  return url;
}

function queueName(value: string | undefined): QueueName | typeof streamFailures {
  if (value === streamFailures) return streamFailures;
  if (!value || !(value in queues))
    throw new UsageError(`QUEUE must be one of ${[...Object.keys(queues), streamFailures].join(", ")}`);
  return value as QueueName;
}

async function status(): Promise<unknown> {
  await useTarget();
  const names = Object.keys(queues) as QueueName[];
  const [depths, streamDeadLetters, stuck, runs, reviews] = await Promise.all([
    Promise.all(names.map(async (name) => [name, await queueDepth(await queueUrl(name))] as const)),
    streamFailuresUrl().then((url) => summarizeDeadLetterQueue(url, 0)),
    stuckWork(),
    lastScheduleRuns(),
    paymentsToReview(),
  ]);
  const lastRun = new Map(runs.map((run) => [run.schedule, run]));
  return {
    at: new Date().toISOString(),
    queues: Object.fromEntries(depths),
    [streamFailures]: { deadLetters: streamDeadLetters.deadLetters },
    stuckWork: stuck,
    paymentsToReview: reviews.length,
    schedules: Object.fromEntries(
      schedules.map((schedule) => [
        schedule.name,
        { cron: schedule.cron, lastRun: lastRun.get(schedule.name) ?? null },
      ]),
    ),
  };
}

async function deadLetters(action: string | undefined, name: QueueName | typeof streamFailures): Promise<unknown> {
  await useTarget();
  if (name === streamFailures) return streamDeadLetters(action);
  const url = await queueUrl(name);
  if (action === "show") return { queue: name, ...(await summarizeDeadLetters(url)) };
  if (action === "redrive") return { queue: name, ...(await redriveDeadLetters(url)), depth: await queueDepth(url) };
  throw new UsageError("dlq needs show or redrive");
}

/**
 * The stream consumers' dead letters describe batches (shard, first and last sequence number), not messages: there
 * is nothing to send back to a queue. Redrive says how to replay them instead.
 */
async function streamDeadLetters(action: string | undefined): Promise<unknown> {
  const url = await streamFailuresUrl();
  if (action === "show") return { queue: streamFailures, ...(await summarizeDeadLetterQueue(url)) };
  if (action === "redrive") {
    throw new UsageError(
      `${streamFailures} holds descriptions of table-stream batches, not messages, so it cannot be redriven. For each ` +
        "(dlq show): fix the cause, read its records from the stream within 24 h of their write (aws dynamodbstreams " +
        "get-shard-iterator --shard-iterator-type AT_SEQUENCE_NUMBER --sequence-number <startSequenceNumber>, then " +
        "get-records up to endSequenceNumber) and repeat their effect (a lead: the pending-lead sweep re-queues it), " +
        "then delete the description from the queue.",
    );
  }
  throw new UsageError("dlq needs show or redrive");
}

/**
 * The identity provider's storage on the target: the local stack's table (the issuer keeps its keys there), or the
 * deployed stage's own identity table (IDENTITY_TABLE_NAME, or `identityTableName` in the deploy's outputs file).
 */
async function identityStorage(): Promise<StorageAdapter> {
  if (!values.stage)
    return DynamoStorage({ ...identityStorageOptions, endpoint: process.env[environmentNames.dynamodbEndpoint] });
  const outputs = await readJson<Record<string, string>>(`${projectRoot}/.sst/outputs.json`);
  const tableName = process.env.IDENTITY_TABLE_NAME ?? outputs?.identityTableName;
  if (!tableName)
    throw new UsageError(
      `No identity table for stage ${values.stage}: set IDENTITY_TABLE_NAME (the deploy's identityTableName output)`,
    );
  return DynamoStorage({ table: tableName });
}

/** The first line of stdin, so a chosen password never sits in the shell's history or the process list. */
async function passwordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0]!;
}

async function run(command: string | undefined): Promise<unknown> {
  switch (command) {
    case "status":
      return status();
    case "payments-to-review":
      await useTarget();
      return paymentsToReview();
    case "dlq":
      return deadLetters(positionals[1], queueName(positionals[2]));
    case "create-org": {
      const name = required("name");
      await useTarget();
      const { organization, apiKey } = await Organizations.create({ name });
      const owner = values["owner-email"]
        ? await Users.add(organization.id, { email: values["owner-email"], role: "owner" })
        : undefined;
      return {
        organizationId: organization.id,
        name: organization.name,
        createdAt: organization.createdAt,
        apiKey,
        ...(owner ? { owner } : {}),
      };
    }
    case "create-user": {
      const organizationId = await existingOrganization();
      const role = roleNamed(required("role"));
      if (!role) throw new UsageError(`--role must be one of ${roles.join(", ")}`);
      return Users.add(organizationId, { email: required("email"), name: values.name, role });
    }
    case "set-password": {
      const email = required("email");
      await useTarget();
      return setSignInPassword(
        await identityStorage(),
        email,
        values["password-stdin"] ? await passwordFromStdin() : undefined,
      );
    }
    case "create-user-token": {
      if (values.stage)
        throw new UsageError(
          "User tokens are signed only by the local stack; a deployed stage trusts its identity provider",
        );
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
      const token = await signUserToken(claims, {
        privateJwk: secrets.privateJwk,
        issuer: secrets.issuer,
        expiresIn: developerTokenLifetime,
      });
      return { token, ...claims };
    }
    case "create-source": {
      const name = required("name");
      const organizationId = await existingOrganization();
      return { organizationId, ...(await createSource(organizationId, name)) };
    }
    case "list-orgs":
      await useTarget();
      return Organizations.list();
    case "backfill-list-indexes":
      if (values.org) return backfillListIndexes(await existingOrganization());
      await useTarget();
      return backfillListIndexes();
    case "migrate-keys":
      if (values.org) return migrateKeys(await existingOrganization());
      await useTarget();
      return migrateKeys();
    case "backfill-usage": {
      if (!values.org) await useTarget();
      const organizationIds = values.org
        ? [await existingOrganization()]
        : (await Organizations.list()).map((organization) => organization.id);
      const counted = [];
      for (const organizationId of organizationIds)
        counted.push({ organizationId, ...(await BillingHistory.backfillUsage(organizationId)) });
      return counted;
    }
    case "billing-adjust": {
      const organizationId = await existingOrganization();
      const entry = await Billing.adjust(organizationId, required("amount"), required("reason"));
      return { entry, wallet: await Billing.wallet(organizationId) };
    }
    case "billing-suspend": {
      const organizationId = await existingOrganization();
      return Billing.setSuspended(organizationId, !values.off, values.reason);
    }
    case "billing-prices": {
      const organizationId = await existingOrganization();
      const overrides = priceOverrides();
      const prices = Object.keys(overrides).length
        ? await Billing.setPrices(organizationId, overrides)
        : await Billing.prices(organizationId);
      return { organizationId, prices };
    }
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
    const errors = error instanceof ValidationError ? { errors: error.errors } : {};
    console.error(JSON.stringify({ error: error instanceof Error ? error.message : String(error), ...errors }));
    if (error instanceof UsageError) console.error(`\n${usage}`);
    process.exitCode = 1;
  }
}
