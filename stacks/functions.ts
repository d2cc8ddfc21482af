import { environmentNames, queues as queueDefinitions, type HandlerDefinition } from "./definitions.ts";
import { queues } from "./queues.ts";
import {
  jwksUrl,
  jwtIssuer,
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

/**
 * What one manifest entry needs beyond the shared defaults: its handler, and
 * send access plus the URL variable for exactly the queues it declares.
 */
export function handlerArgs(definition: HandlerDefinition): sst.aws.FunctionArgs {
  const sendsTo = definition.sendsTo ?? [];
  return {
    handler: definition.handler,
    ...(definition.copyFiles ? { copyFiles: definition.copyFiles.map((file) => ({ ...file })) } : {}),
    link: sendsTo.map((name) => queues[name].send),
    environment: Object.fromEntries(sendsTo.map((name) => [queueDefinitions[name].urlEnv, queues[name].queue.url])),
  };
}

/** Variables the stacks set themselves, or that only make sense on a laptop: never taken from the deploying shell. */
const notOperatorSettings = new Set<string>([
  environmentNames.tableName,
  environmentNames.jwtIssuer,
  environmentNames.jwksUrl,
  environmentNames.jwksJson,
  environmentNames.tokenSigningKey,
  environmentNames.dynamodbEndpoint,
  environmentNames.sqsEndpoint,
  environmentNames.publicBaseUrl,
  environmentNames.twilioAccountSid,
  environmentNames.twilioAuthToken,
  environmentNames.twilioApiKeySid,
  environmentNames.twilioApiKeySecret,
  environmentNames.telnyxApiKey,
  environmentNames.telnyxPublicKey,
  environmentNames.stripeSecretKey,
  environmentNames.stripeWebhookSecret,
  environmentNames.stripeApiUrl,
]);

/**
 * Every other manifest setting that is set in the deploying shell
 * (`RATE_LIMIT_REQUESTS=600 npx sst deploy`); unset ones keep the code's default.
 */
const operatorSettings = Object.fromEntries(
  Object.values(environmentNames)
    .filter((name) => !notOperatorSettings.has(name) && process.env[name])
    .map((name) => [name, process.env[name] ?? ""]),
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
 * the secrets and the public URL. Runtime and architecture are fixed; other
 * values already set on `args` win (environment and links are merged).
 */
export function withDefaults(args: sst.aws.FunctionArgs, publicBaseUrl: $util.Input<string>): sst.aws.FunctionArgs {
  const shared = {
    [environmentNames.tableName]: table.name,
    [environmentNames.jwtIssuer]: jwtIssuer.value,
    [environmentNames.jwksUrl]: jwksUrl.value,
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
    [environmentNames.provider]: $output([twilioAccountSid.value, telnyxApiKey.value]).apply(([sid, telnyxKey]) => deployedProvider(sid, telnyxKey)),
    // Carriers block unregistered A2P traffic: a deployed stage refuses it before the carrier does (an operator may set false).
    [environmentNames.a2pRegistrationRequired]: "true",
    ...operatorSettings,
  };
  args.runtime = "nodejs22.x";
  args.architecture = "arm64";
  args.memory ??= "1024 MB";
  args.timeout ??= "20 seconds";
  args.environment = $output([shared, args.environment ?? {}]).apply(([common, own]) => ({ ...common, ...own }));
  args.link = $output(args.link ?? []).apply((own) => [tableData, ...own]);
  return args;
}
