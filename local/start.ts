import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { consumers, environmentNames, queues, schedules, streamConsumers, table } from "#stacks/definitions";
import { startDynamoDbLocal } from "#local/dynamodb-local";
import { functionName, loadFunction } from "#local/handlers";
import { startHttpServer } from "#local/http-server";
import { startPaymentSimulator } from "#local/payment-simulator";
import { startTrustedFormFake } from "#local/trustedform-fake";
import { startJornayaFake } from "#local/jornaya-fake";
import { ensureDevelopmentCredentials } from "#local/provision";
import { startLocalIdentityProvider, type LocalIdentityProvider } from "#local/identity";
import { dashboardClientId } from "#core/auth/local-tokens";
import { startQueuePoller, type QueuePoller } from "#local/queue-poller";
import { createLocalResources, localDynamoDbClient, localSqsClient, type LocalQueue } from "#local/resources";
import { sendStreamFailuresTo, startStreamPoller } from "#local/stream-poller";
import { startScheduler } from "#local/scheduler";
import { loadOrCreateSecrets, secretsEnv, type LocalSecrets } from "#local/secrets";
import { appPath, ensureWebBuild } from "#local/web-app";
import { startSqsEmulator } from "#local/sqs-emulator";
import { defaultStateDir, removeStackState, stackStatePath, writeJson, type StackState } from "#local/state";
import type { QueueName } from "#stacks/definitions";

export interface LocalStackOptions {
  /** HTTP port; 0 picks a free one. Default 3000. */
  port?: number;
  host?: string;
  /** DynamoDB Local without files (tests); otherwise data is kept in `<stateDir>/dynamodb`. */
  inMemory?: boolean;
  /** Secrets, data, credentials and stack.json. Default `.local/` in the repository. */
  stateDir?: string;
  /** Provision the development organization and write credentials.json. Default: when not in memory. */
  provision?: boolean;
  /** Batches in flight at once per queue consumer. Default: the consumer queue's maximumConcurrency, as deployed. */
  pollersPerQueue?: number;
  /** Tests only: see HttpServerOptions.trustForwardedFor. */
  trustForwardedFor?: boolean;
  dynamodbPort?: number;
  /** DynamoDB Local JVM tuning: quick start (default) or full JIT for benchmarks. */
  optimizeFor?: "startup" | "throughput";
  sqsPort?: number;
  /** The identity provider's port (OpenAuth serves from the root of its own origin). Default: a free one (`npm start`: 3001). */
  identityPort?: number;
  log?: (line: string) => void;
}

export interface LocalStack {
  baseUrl: string;
  /** Everything the functions read from their environment; also applied to this process. */
  env: Record<string, string>;
  secrets: LocalSecrets;
  queues: Record<QueueName, LocalQueue>;
  /** Set when `provision` wrote `.local/credentials.json`. */
  credentialsFile?: string;
  /** The development owner's dashboard login, when provisioned. */
  ownerLogin?: { email: string; password: string };
  /** The local identity provider (the issuer the dashboard signs in with) and its mailbox. */
  identity: LocalIdentityProvider;
  stop(): Promise<void>;
}

/**
 * Runs the service on this machine: DynamoDB Local, the SQS emulator, the table
 * and queues from stacks/definitions.ts, the HTTP API, queue consumers and
 * schedules, all invoking the same handler modules Lambda runs. The functions
 * run in this process, so its environment is set to the stack's.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const log = options.log ?? (() => undefined);
  const stateDir = options.stateDir ?? defaultStateDir;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stoppers.splice(0).reverse()) {
      await stopOne().catch((error: unknown) =>
        log(`shutdown: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  };

  try {
    // eslint-disable-next-line prefer-const -- the server (started first) reads it through a closure before the provider exists
    let identity: LocalIdentityProvider | undefined;
    const [secrets, dynamodb, sqsEmulator] = await Promise.all([
      loadOrCreateSecrets(stateDir),
      startDynamoDbLocal({
        inMemory: options.inMemory,
        dbPath: join(stateDir, "dynamodb"),
        port: options.dynamodbPort,
        optimizeFor: options.optimizeFor,
      }).then((started) => {
        stoppers.push(started.stop);
        return started;
      }),
      startSqsEmulator({ port: options.sqsPort }).then((started) => {
        stoppers.push(started.stop);
        return started;
      }),
      ensureWebBuild(log),
    ]);
    const resources = await createLocalResources({ dynamodb: dynamodb.endpoint, sqs: sqsEmulator.endpoint });
    Object.assign(process.env, resources.env, secretsEnv(secrets));

    const server = await startHttpServer({
      port: options.port ?? 3000,
      host: options.host,
      jwks: secrets.jwks,
      trustForwardedFor: options.trustForwardedFor,
      log,
      app: { identity: () => identity && { issuer: identity.url, clientId: dashboardClientId } },
    });
    stoppers.push(server.stop);
    // Payments: the local payment simulator stands in for Stripe unless the developer set a real (test-mode) key
    // without a simulator URL (a restarted stack that inherited an earlier simulator's settings gets a fresh one).
    const realStripe =
      Boolean(process.env[environmentNames.stripeSecretKey]) && !process.env[environmentNames.stripeApiUrl];
    const payments = realStripe
      ? undefined
      : await startPaymentSimulator({ webhookUrl: () => `${server.url}/webhooks/payments/stripe` });
    if (payments) stoppers.push(payments.stop);
    const identityProvider = await startLocalIdentityProvider({
      dynamodbEndpoint: dynamodb.endpoint,
      appUrl: () => `${server.url}${appPath}`,
      port: options.identityPort ?? 0,
      host: options.host,
      trustForwardedFor: options.trustForwardedFor,
      mailDir: join(stateDir, "mail"),
      log,
    });
    identity = identityProvider;
    stoppers.push(identityProvider.stop);
    // Consent certificates: the TrustedForm fake answers claims unless the developer points TRUSTEDFORM_API_URL elsewhere.
    const trustedForm = process.env[environmentNames.trustedFormApiUrl] ? undefined : await startTrustedFormFake();
    if (trustedForm) stoppers.push(trustedForm.stop);
    const jornaya = process.env[environmentNames.jornayaApiUrl] ? undefined : await startJornayaFake();
    if (jornaya) stoppers.push(jornaya.stop);
    const env = {
      ...resources.env,
      ...secretsEnv(secrets, identityProvider),
      [environmentNames.publicBaseUrl]: server.url,
      [environmentNames.localMailDir]: identityProvider.mailDir,
      ...(payments
        ? {
            [environmentNames.stripeSecretKey]: payments.secretKey,
            [environmentNames.stripeWebhookSecret]: payments.webhookSecret,
            [environmentNames.stripeApiUrl]: payments.url,
          }
        : {}),
      ...(trustedForm ? { [environmentNames.trustedFormApiUrl]: trustedForm.url } : {}),
      ...(jornaya ? { [environmentNames.jornayaApiUrl]: jornaya.url } : {}),
      // The local stack (development and tests) is the one place automations may call loopback receivers.
      [environmentNames.automationHttpAllowPrivate]: process.env[environmentNames.automationHttpAllowPrivate] ?? "true",
      // … and receive event webhooks there over plain http (deployed stages: public https only).
      [environmentNames.webhookAllowPrivate]: process.env[environmentNames.webhookAllowPrivate] ?? "true",
      [environmentNames.webhookRequireHttps]: process.env[environmentNames.webhookRequireHttps] ?? "false",
    };
    Object.assign(process.env, env);

    const sqsClient = localSqsClient(sqsEmulator.endpoint);
    stoppers.push(async () => sqsClient.destroy());
    const pollers: QueuePoller[] = consumers.map((consumer) =>
      startQueuePoller({
        client: sqsClient,
        queueUrl: resources.queues[consumer.queue].url,
        queueArn: resources.queues[consumer.queue].arn,
        batchSize: queues[consumer.queue].batchSize,
        timeoutSeconds: queues[consumer.queue].consumerTimeoutSeconds,
        // As many batches at once as the deployed event source allows (SQS maximumConcurrency).
        maximumConcurrency: options.pollersPerQueue ?? queues[consumer.queue].maximumConcurrency,
        functionName: functionName(consumer.handler),
        handler: async (event, context) => (await loadFunction(consumer))(event, context) as never,
        log,
      }),
    );
    stoppers.push(async () => void (await Promise.all(pollers.map((poller) => poller.stop()))));
    const streamClient = localDynamoDbClient(dynamodb.endpoint);
    stoppers.push(async () => streamClient.destroy());
    const streamPollers = streamConsumers.map((consumer) =>
      startStreamPoller({
        endpoint: dynamodb.endpoint,
        dynamodb: streamClient,
        tableName: table.name,
        records: consumer.records,
        batchSize: consumer.batchSize,
        // As deployed (analytics rollups gather 5 s); the tests and the chaos harness scale it to 0 (local/short-waits.ts).
        batchingWindowMs:
          (consumer.batchingWindowSeconds ?? 0) * 1000 * Number(process.env.STREAM_BATCHING_WINDOW_SCALE ?? 1),
        timeoutSeconds: consumer.timeoutSeconds,
        functionName: functionName(consumer.handler),
        handler: async (event, context) => (await loadFunction(consumer))(event, context) as never,
        deadLetters: sendStreamFailuresTo(sqsClient, resources.streamFailuresUrl),
        log,
      }),
    );
    stoppers.push(async () => void (await Promise.all(streamPollers.map((poller) => poller.stop()))));
    const scheduler = startScheduler(schedules, log);
    stoppers.push(scheduler.stop);

    let credentialsFile: string | undefined;
    let ownerLogin: LocalStack["ownerLogin"];
    if (options.provision ?? !options.inMemory) {
      const development = await ensureDevelopmentCredentials(stateDir, server.url, secrets, identityProvider);
      credentialsFile = development.file;
      ownerLogin = development.credentials.ownerLogin;
    }
    const state: StackState = { baseUrl: server.url, env, pid: process.pid, startedAt: new Date().toISOString() };
    await writeJson(stackStatePath(stateDir), state);
    stoppers.unshift(() => removeStackState(stateDir));

    return {
      baseUrl: server.url,
      env,
      secrets,
      queues: resources.queues,
      credentialsFile,
      ownerLogin,
      identity: identityProvider,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: "string" }, host: { type: "string" } } });
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  const numeric = (value: string | undefined) => (value ? Number(value) : undefined);
  const started = Date.now();
  const stack = await startLocalStack({
    port,
    host: values.host ?? process.env.HOST,
    dynamodbPort: numeric(process.env.DYNAMODB_LOCAL_PORT),
    sqsPort: numeric(process.env.SQS_LOCAL_PORT),
    // Next to the API (3001 beside 3000): a stable issuer URL, so `iss` stays the same across restarts.
    identityPort: numeric(process.env.IDENTITY_PORT) ?? (port === 0 ? 0 : port + 1),
    log: (line) => console.log(`[local] ${line}`),
  });
  const env = stack.env;
  console.log(
    [
      ``,
      `Local stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      `  API          ${stack.baseUrl}`,
      `  Dashboard    ${stack.baseUrl}/app/`,
      ...(stack.ownerLogin
        ? [
            `  sign in as   ${stack.ownerLogin.email}  password ${stack.ownerLogin.password}  (the development organization's owner)`,
          ]
        : []),
      `  identity     ${stack.identity.url} (OpenAuth issuer; e-mails it sends: ${stack.identity.url}/dev/mailbox)`,
      `  DynamoDB     ${env[environmentNames.dynamodbEndpoint]} (table ${env[environmentNames.tableName]}, data in .local/dynamodb)`,
      `  SQS          ${env[environmentNames.sqsEndpoint]} (fauxqs; queues are recreated on every start)`,
      `  payments     ${env[environmentNames.stripeApiUrl] ? `payment simulator at ${env[environmentNames.stripeApiUrl]} (top-up checkout pages are paid there; no card is charged)` : "Stripe (STRIPE_SECRET_KEY from your shell)"}`,
      `  TrustedForm  ${env[environmentNames.trustedFormApiUrl] ? `certificate fake at ${env[environmentNames.trustedFormApiUrl]} (register certificates with POST /__fake/certificates)` : "cert.trustedform.com"}`,
      `  Jornaya      ${env[environmentNames.jornayaApiUrl] ? `LeadiD fake at ${env[environmentNames.jornayaApiUrl]} (register tokens with POST /__fake/tokens)` : "api.leadid.com"}`,
      `  consumers    ${consumers.length}, schedules ${schedules.length}`,
      `  credentials  ${stack.credentialsFile}`,
      `Press Ctrl-C to stop.`,
      ``,
    ].join("\n"),
  );
  let stoppingSince: number | undefined;
  const shutdown = (signal: string) => {
    // A terminal's Ctrl-C can reach us twice (directly and relayed by npm): only a later, second press forces.
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < 1_000) return;
      console.log("Forced exit.");
      process.exit(1);
    }
    stoppingSince = Date.now();
    console.log(`\n${signal}: stopping the local stack…`);
    void stack.stop().then(() => {
      console.log("Stopped.");
      process.exit(0);
    });
  };
  // In Lambda a stray rejection ends one invocation; here it must not end the whole stack.
  process.on("unhandledRejection", (reason) => console.error("[local] unhandled rejection:", reason));
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    const inUse = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
    console.error(
      inUse
        ? `${(error as Error).message}: is another \`npm start\` running? Pick another port with PORT=3001 npm start`
        : error,
    );
    process.exit(1);
  });
}
