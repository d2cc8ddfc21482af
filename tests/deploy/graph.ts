import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Where the mocked deploys write their graphs and share function bundles within one run (git-ignored, under .sst). */
export const deployTestDir = join(import.meta.dirname, "../../.sst/deploy-test");

export const graphFile = (name: string) => join(deployTestDir, "graphs", `${name}.json`);

/** The secrets a real stage has set (`npx sst secret set …`); SST reads them from `SST_SECRET_<name>`. */
const stageSecrets = {
  SST_SECRET_JwtIssuer: "https://issuer.example.com",
  SST_SECRET_JwksUrl: "https://issuer.example.com/.well-known/jwks.json",
  SST_SECRET_TokenSigningKey: "deploy-test-signing-key",
  SST_SECRET_TwilioAccountSid: "ACdeploytest",
  SST_SECRET_TwilioAuthToken: "deploy-test-auth-token",
  SST_SECRET_TwilioApiKeySid: "SKdeploytest",
  SST_SECRET_TwilioApiKeySecret: "deploy-test-api-key-secret",
};

/**
 * What a careless or hostile deploying shell may hold: the local stack's settings (the carrier simulator, both SSRF
 * guards off, plain http, the emulators' endpoints, the carriers' and Stripe's hosts pointed elsewhere).
 * None of it may reach a deployed function.
 */
export const hostileShell = {
  PROVIDER: "simulator",
  WEBHOOK_ALLOW_PRIVATE: "true",
  AUTOMATION_HTTP_ALLOW_PRIVATE: "true",
  WEBHOOK_REQUIRE_HTTPS: "false",
  DYNAMODB_ENDPOINT: "http://127.0.0.1:8000",
  SQS_ENDPOINT: "http://127.0.0.1:9324",
  JWKS_JSON: '{"keys":[]}',
  STRIPE_API_URL: "http://127.0.0.1:1",
  TWILIO_API_BASE_URL: "http://127.0.0.1:2",
  TELNYX_API_BASE_URL: "http://127.0.0.1:3",
  SIMULATOR_DELAY_SCALE: "0",
  WEBHOOK_RETRY_SCALE: "0",
};

/** The mocked deploys of one test run: a development stage, production, and the development stage from a hostile shell. */
export const deployRuns = [
  { name: "ci", stage: "ci", env: stageSecrets },
  { name: "prod", stage: "prod", env: stageSecrets },
  { name: "ci-hostile-shell", stage: "ci", env: { ...stageSecrets, ...hostileShell } },
] as const;

export type DeployRunName = (typeof deployRuns)[number]["name"];

export interface RecordedResource {
  type: string;
  name: string;
  inputs: Record<string, any>;
}

export interface MockDeploy {
  stage: string;
  /** The function bundles Runtime.Build produced, as SST packaged them. */
  builds: { functionID: string; handler: string; out: string; bundle: string; minified: boolean }[];
  app: { removal: string; protect: boolean };
  failure?: string;
  rpcErrors: string[];
  resources: RecordedResource[];
}

const account = "123456789012";
const region = "us-east-1";

/** The recorded graph of one mocked deploy, with lookups by the physical names and ARNs the mocks hand out. */
export function loadGraph(name: DeployRunName) {
  const deploy = JSON.parse(readFileSync(graphFile(name), "utf8")) as MockDeploy;
  const ofType = (type: string) => deploy.resources.filter((resource) => resource.type === type);
  // The identity provider (sst.aws.Auth "Identity", stacks/auth.ts) brings its own issuer function and storage table:
  // no manifest trigger starts it (its function URL does), and its table is not the app's single table.
  const isIdentityProvider = (resource: RecordedResource) => resource.name.startsWith("Identity");
  const allFunctions = ofType("aws:lambda/function:Function");
  const functions = allFunctions.filter((fn) => !isIdentityProvider(fn));
  const identityFunctions = allFunctions.filter(isIdentityProvider);
  const appTable = one(
    ofType("aws:dynamodb/table:Table").filter((table) => !isIdentityProvider(table)),
    "the app's table",
  );
  const queues = ofType("aws:sqs/queue:Queue");
  const roles = ofType("aws:iam/role:Role");
  const physical = (resource: RecordedResource) => `${resource.name}-mock`;
  const functionArn = (resource: RecordedResource) =>
    `arn:aws:lambda:${region}:${account}:function:${physical(resource)}`;
  const queueArn = (resource: RecordedResource) => `arn:aws:sqs:${region}:${account}:${physical(resource)}`;
  const streamArn = `arn:aws:dynamodb:${region}:${account}:table/${physical(appTable)}/stream/2025-01-01T00:00:00.000`;

  function one<T>(found: T[], what: string): T {
    if (found.length !== 1) throw new Error(`${what}: ${found.length} found in the ${name} graph`);
    return found[0]!;
  }
  const buildOf = (fn: RecordedResource) =>
    one(
      deploy.builds.filter((build) => fn.inputs.s3Key.startsWith(`assets/${build.functionID}-code-`)),
      `bundle of ${fn.name}`,
    );

  return {
    deploy,
    ofType,
    /** Every function the manifest declares (routes, consumers, stream consumers, schedules, the fallback). */
    functions,
    /** Those and the identity provider's issuer. */
    allFunctions,
    identityFunctions,
    appTable,
    queues,
    streamArn,
    physical,
    functionArn,
    queueArn,
    /** The SQS queue SST's `sst.aws.Queue` named `<id>` created (its resource is `<id>Queue`). */
    queue: (componentName: string) =>
      one(
        queues.filter((queue) => queue.name === `${componentName}Queue`),
        `queue ${componentName}`,
      ),
    functionByArn: (arn: string) => functions.find((fn) => functionArn(fn) === arn),
    functionByName: (functionName: string) => functions.find((fn) => physical(fn) === functionName),
    functionsWithHandler: (handler: string) => functions.filter((fn) => fn.inputs.handler === handler),
    /**
     * The bundled code of a function (its package's S3 key names the build it was made from): its entry and, for a
     * split function, every chunk packaged beside it, since the entry may load any of them.
     */
    bundleOf: (fn: RecordedResource) => {
      const { out } = buildOf(fn);
      return readdirSync(out, { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".mjs"))
        .sort()
        .map((file) => readFileSync(join(out, file), "utf8"))
        .join("\n");
    },
    /** Whether SST's build was asked to minify the function's bundle (`nodejs.minify`). */
    minifiedBuild: (fn: RecordedResource) => buildOf(fn).minified,
    /** Where the function's package was assembled: its bundle and the files `copyFiles` put beside it. */
    packageDirectoryOf: (fn: RecordedResource) => buildOf(fn).out,
    roleOf: (fn: RecordedResource) =>
      one(
        roles.filter((role) => `arn:aws:iam::${account}:role/${physical(role)}` === fn.inputs.role),
        `role of ${fn.name}`,
      ),
    eventSourceMappingsOf: (sourceArn: string) =>
      ofType("aws:lambda/eventSourceMapping:EventSourceMapping").filter(
        (mapping) => mapping.inputs.eventSourceArn === sourceArn,
      ),
  };
}

export type Graph = ReturnType<typeof loadGraph>;

/** `[action, resource]` pairs an IAM policy document allows, sorted, as `action on resource` strings. */
export function grantsOf(policyJson: string): string[] {
  const document = JSON.parse(policyJson) as {
    Statement: { Effect: string; Action: string | string[]; Resource: string | string[] }[];
  };
  const pairs = document.Statement.flatMap((statement) => {
    if (statement.Effect !== "Allow") return [];
    const actions = [statement.Action].flat();
    const resources = [statement.Resource].flat();
    return actions.flatMap((action) => resources.map((resource) => `${action} on ${resource}`));
  });
  return [...new Set(pairs)].sort();
}
