import { environmentNames, httpLimits, queues as queueDefinitions, type HandlerDefinition } from "./definitions.ts";
import { queues } from "./queues.ts";
import { phoneMetadataFile } from "./packaged-files.ts";
import { lambdaOnlyRole } from "./roles.ts";
import { auth, dashboardClientId, mailFrom, sendMailGrant } from "./auth.ts";
import {
  stripeSecretKey,
  stripeWebhookSecret,
  telnyxApiKey,
  telnyxPublicKey,
  tokenSigningKey,
  twilioAccountSid,
  twilioApiKeySecret,
  twilioApiKeySid,
  twilioAuthToken,
} from "./secrets.ts";
import { table, tableData } from "./table.ts";

/** The esbuild plugins of every deployed function's build, relative to the project root (SST's `nodejs.plugins`). */
export const bundlePlugins = "stacks/bundle-plugins.mjs";

/**
 * What one manifest entry needs beyond the shared defaults: its handler, and
 * send access plus the URL variable for exactly the queues it declares.
 */
export function handlerArgs(definition: HandlerDefinition): sst.aws.FunctionArgs {
  const sendsTo = definition.sendsTo ?? [];
  return {
    handler: definition.handler,
    // Every function gets the phone metadata: a function that parses a phone without it would fail at run time, and
    // which ones parse follows the code, not the manifest.
    copyFiles: [...(definition.copyFiles ?? []), phoneMetadataFile].map((file) => ({ ...file })),
    link: sendsTo.map((name) => queues[name].send),
    environment: {
      ...Object.fromEntries(sendsTo.map((name) => [queueDefinitions[name].urlEnv, queues[name].queue.url])),
      ...(definition.sendsMail ? { [environmentNames.mailFrom]: mailFrom } : {}),
    },
    ...(definition.sendsMail ? { permissions: [sendMailGrant] } : {}),
  };
}

/**
 * The only settings a deploying shell may tune (`RATE_LIMIT_REQUESTS=600 npx sst deploy`): limits, retry timings
 * and carrier account identifiers; unset ones keep the code's default. Everything else is computed by the stacks
 * (table, secrets, URLs, the carrier) or exists only for the local stack and the tests (the simulator, the SSRF
 * guards' private-address and plain-http allowances, emulator endpoints, fake carrier hosts, shortened waits):
 * a variable left in the shell, or set on purpose, cannot switch a safety off in a deployed stage. An allow-list,
 * so a new variable is safe until someone decides it is an operator setting.
 */
const operatorSettingNames = [
  environmentNames.rateLimitRequests,
  environmentNames.listScanBudget,
  environmentNames.telnyxTexmlConnectionId,
  environmentNames.telnyxMessagingProfileId,
  environmentNames.telnyxAccountSid,
  environmentNames.messageMaxRetries,
  environmentNames.messageRetryBaseMs,
  environmentNames.messageRetryMaxDelayMs,
  environmentNames.messageReceiptTimeoutMs,
  environmentNames.messageReceiptCheckMs,
  environmentNames.billingTrialCredit,
  environmentNames.automationRetryBaseMs,
  environmentNames.webhookDisableAfterMs,
  // Whether anyone may create an organization by signing up (off unless the operator opens it for the stage).
  environmentNames.selfServiceSignUp,
  // Whether senders must be on an approved 10DLC campaign (on unless the operator turns it off for the stage).
  environmentNames.a2pRegistrationRequired,
];

const operatorSettings = Object.fromEntries(
  operatorSettingNames.filter((name) => process.env[name]).map((name) => [name, process.env[name] ?? ""]),
);

/**
 * The carrier a deployed stage sends through. The in-process carrier simulator
 * answers with timers, which do not survive a frozen Lambda, so a stage without
 * carrier credentials is refused at deploy time rather than silently losing
 * every receipt; the simulator runs only on the local stack.
 */
export function deployedProvider(twilioAccountSidValue: string, telnyxApiKeyValue = ""): "twilio" | "telnyx" {
  if (twilioAccountSidValue) return "twilio";
  if (telnyxApiKeyValue) return "telnyx";
  throw new Error(
    `Stage "${$app.stage}" has no carrier credentials. Set them before deploying:\n` +
      `  npx sst secret set TwilioAccountSid AC… --stage ${$app.stage}\n` +
      `  npx sst secret set TwilioAuthToken … --stage ${$app.stage}\n` +
      `  npx sst secret set TwilioApiKeySid SK… --stage ${$app.stage}   (and TwilioApiKeySecret: REST requests use the API key)\n` +
      `  (or TelnyxApiKey and TelnyxPublicKey for Telnyx; see docs/providers.md)\n` +
      "The carrier simulator runs only on the local stack (npm start); it cannot run inside Lambda.",
  );
}

/**
 * Fills the defaults every function shares (the API's route transform, queue
 * consumers and schedules all go through here): Node 22 on arm64, the table,
 * the secrets and the public URL, a role only Lambda assumes. Runtime and architecture are fixed; other
 * values already set on `args` win (environment and links are merged).
 */
export function withDefaults(args: sst.aws.FunctionArgs, publicBaseUrl: $util.Input<string>): sst.aws.FunctionArgs {
  const shared = {
    // Carriers block unregistered A2P traffic: a deployed stage refuses it before the carrier does (an operator
    // may turn it off for the stage with A2P_REGISTRATION_REQUIRED=false, an operator setting).
    [environmentNames.a2pRegistrationRequired]: "true",
    ...operatorSettings,
    [environmentNames.tableName]: table.name,
    // User tokens: only the stage's own identity provider, only for the dashboard's client.
    [environmentNames.jwtIssuer]: auth.url,
    [environmentNames.jwtAudience]: dashboardClientId,
    [environmentNames.jwksUrl]: $interpolate`${auth.url}/.well-known/jwks.json`,
    [environmentNames.tokenSigningKey]: tokenSigningKey.value,
    [environmentNames.twilioAccountSid]: twilioAccountSid.value,
    [environmentNames.twilioAuthToken]: twilioAuthToken.value,
    [environmentNames.twilioApiKeySid]: twilioApiKeySid.value,
    [environmentNames.twilioApiKeySecret]: twilioApiKeySecret.value,
    [environmentNames.telnyxApiKey]: telnyxApiKey.value,
    [environmentNames.telnyxPublicKey]: telnyxPublicKey.value,
    [environmentNames.stripeSecretKey]: stripeSecretKey.value,
    [environmentNames.stripeWebhookSecret]: stripeWebhookSecret.value,
    [environmentNames.publicBaseUrl]: publicBaseUrl,
    [environmentNames.provider]: $output([twilioAccountSid.value, telnyxApiKey.value]).apply(([sid, telnyxKey]) =>
      deployedProvider(sid, telnyxKey),
    ),
  };
  // SST's docs give `minify` a default of true, but its build (pkg/runtime/node/build.go) minifies only when the
  // property is set: stated here so deployed bundles are the ones `npm run bench -- bundles` measures. The plugins
  // bundle the role's credentials from the environment in place of the SDK's whole chain (stacks/bundle-plugins.mjs);
  // `sst dev` runs functions on the developer's machine, so it keeps the chain.
  // Code splitting (SST's `nodejs.splitting`) for every function of the manifest: what a handler loads by dynamic
  // `import()` (aws-jwt-verify, an automation action, an A2A skill, the SDK's own event streams) becomes a chunk loaded
  // on first use. Without it esbuild inlines each `import()` and turns that module and all it imports, most of
  // @smithy/core among them, into lazily initialised closures: compiled at every cold start, and slower to start than
  // the same code hoisted (docs/decisions.md, seventeenth pass). SST then bundles into a directory (entry
  // `<handler file>.mjs`, chunks beside it) and zips all of it.
  args.nodejs = $output(args.nodejs ?? {}).apply((own) => ({
    minify: true,
    splitting: true,
    ...($dev ? {} : { plugins: bundlePlugins }),
    ...own,
  }));
  args.runtime = "nodejs22.x";
  args.architecture = "arm64";
  args.memory ??= "1024 MB";
  args.timeout ??= `${httpLimits.functionTimeoutSeconds} seconds`;
  args.environment = $output([shared, args.environment ?? {}]).apply(([common, own]) => ({ ...common, ...own }));
  args.link = $output(args.link ?? []).apply((own) => [tableData, ...own]);
  args.transform = { ...args.transform, ...lambdaOnlyRole() };
  return args;
}
