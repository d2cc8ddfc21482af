import { NotFoundError, ForbiddenError } from "#core/errors";
import { config } from "#core/config";
import { withCorrelationParameter } from "#core/observability/index";
import { ProviderError, type ProviderName, type ProviderPort, type WebhookRequest } from "#core/providers/port";
import { createTelnyxProvider, type TelnyxConfig } from "#core/providers/telnyx/adapter";
import { createTwilioProvider, type TwilioConfig } from "#core/providers/twilio/adapter";
import { environmentNames } from "#stacks/definitions";

/** Carrier settings read from the environment (lazily, so the local runner and tests can set them first). */
export const providerConfig = {
  /** The deployment's default carrier: `simulator` (default: local stack and tests), `twilio` or `telnyx`. */
  get provider(): "simulator" | "twilio" | "telnyx" {
    const chosen = process.env[environmentNames.provider];
    return chosen === "twilio" || chosen === "telnyx" ? chosen : "simulator";
  },
  /** Multiplies the simulator's callback delays (tests: 0.2; 1 = the documented delays). */
  get simulatorDelayScale(): number {
    const value = Number(process.env[environmentNames.simulatorDelayScale] ?? "1");
    return Number.isFinite(value) && value >= 0 ? value : 1;
  },
};

/**
 * The carrier simulator's factory, installed by the processes that run it (`installSimulator` from
 * `core/providers/simulator/install.ts`: the local stack, the tests' workers, the benches). No deployed function
 * installs it, since Lambda never runs the simulator (below), so its adapter stays out of every bundle.
 */
let simulatorFactory: ((options: { tokenSigningKey: string; delayScale: number }) => ProviderPort) | undefined;

/** Lets this process answer `simulator` (see `simulatorFactory`). */
export function useSimulator(
  factory: (options: { tokenSigningKey: string; delayScale: number }) => ProviderPort,
): void {
  simulatorFactory = factory;
}

/**
 * Picks the carrier adapter. Sends use the configured one (`PROVIDER`,
 * simulator by default); webhooks name theirs in the path and are only
 * accepted for a provider that is configured (Twilio needs its auth token).
 */
const cache = new Map<string, ProviderPort>();

/**
 * The builders of each carrier's `registration` (10DLC, toll-free). Only carrier registration passes them
 * (`core/providers/registrars.ts`): an adapter asked without them has no `registration`, so the functions that send,
 * call and take callbacks leave the registrars' code out of their bundles.
 */
export interface Registrars {
  twilio: NonNullable<TwilioConfig["registrar"]>;
  telnyx: NonNullable<TelnyxConfig["registrar"]>;
}

export function outboundProvider(): ProviderPort {
  const provider = providerByName(providerConfig.provider);
  if (!provider) {
    const detail =
      runsInLambda() && providerConfig.provider === "simulator"
        ? "The carrier simulator does not run in AWS; set the stage's Twilio credentials."
        : `${providerConfig.provider} credentials are not configured.`;
    throw new ProviderError("permanent", "provider_not_configured", detail);
  }
  return provider;
}

/** The adapter for a webhook path segment, or undefined when that provider is not in use here. */
export function providerByName(name: string, registrars?: Registrars): ProviderPort | undefined {
  if (name === "telnyx") return telnyx(registrars);
  if (name !== "simulator" && name !== "twilio") return undefined;
  // Never inside Lambda: the simulator's callbacks are timers a frozen function never fires (the deploy refuses such a stage too).
  if (name === "simulator" && runsInLambda()) return undefined;
  const sid = process.env[environmentNames.twilioAccountSid];
  const token = process.env[environmentNames.twilioAuthToken];
  const keySid = process.env[environmentNames.twilioApiKeySid];
  const keySecret = process.env[environmentNames.twilioApiKeySecret];
  const apiKey = keySid && keySecret ? { sid: keySid, secret: keySecret } : undefined;
  const key =
    name === "twilio"
      ? `twilio:${sid}:${token}:${keySid}:${keySecret}:${process.env[environmentNames.twilioApiBaseUrl]}`
      : `simulator:${config.tokenSigningKey}:${providerConfig.simulatorDelayScale}`;
  let provider = cache.get(registering(key, registrars));
  if (!provider) {
    provider = create(name as ProviderName, sid, token, apiKey, registrars);
    if (!provider) return undefined;
    cache.set(registering(key, registrars), provider);
  }
  return provider;
}

/** An adapter with its registrar is cached apart from one without. */
function registering(key: string, registrars: Registrars | undefined): string {
  return registrars ? `${key}:registrars` : key;
}

/** Lambda's runtime sets this; the local runner does not. */
function runsInLambda(): boolean {
  return Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
}

function create(
  name: ProviderName,
  sid: string | undefined,
  token: string | undefined,
  apiKey: { sid: string; secret: string } | undefined,
  registrars: Registrars | undefined,
): ProviderPort | undefined {
  // The auth token only checks webhook signatures; REST requests need the API key (the adapter refuses them without one).
  const baseUrl = process.env[environmentNames.twilioApiBaseUrl];
  if (name === "twilio")
    return sid && token
      ? createTwilioProvider({
          accountSid: sid,
          authToken: token,
          ...(apiKey ? { apiKey } : {}),
          ...(baseUrl ? { baseUrl } : {}),
          ...(registrars ? { registrar: registrars.twilio } : {}),
        })
      : undefined;
  if (providerConfig.provider !== "simulator") return undefined;
  return simulatorFactory?.({
    tokenSigningKey: config.tokenSigningKey,
    delayScale: providerConfig.simulatorDelayScale,
  });
}

/** Where the provider posts a message's status callbacks (our message id rides in the query, covered by the signature). */
export function statusCallbackUrl(provider: ProviderName, messageId: string, organizationId?: string): string {
  // The organization too: its callbacks read the message without looking up the number's route first.
  const organization = organizationId ? `&organizationId=${encodeURIComponent(organizationId)}` : "";
  return withCorrelationParameter(
    `${config.publicBaseUrl.replace(/\/$/, "")}/webhooks/${provider}/messages/status?messageId=${encodeURIComponent(messageId)}${organization}`,
  );
}

/** Telnyx, when its API key and webhook public key are configured. */
function telnyx(registrars: Registrars | undefined): ProviderPort | undefined {
  const apiKey = process.env[environmentNames.telnyxApiKey];
  const publicKey = process.env[environmentNames.telnyxPublicKey];
  if (!apiKey || !publicKey) return undefined;
  const settings = {
    texmlConnectionId: process.env[environmentNames.telnyxTexmlConnectionId],
    messagingProfileId: process.env[environmentNames.telnyxMessagingProfileId],
    accountSid: process.env[environmentNames.telnyxAccountSid],
    baseUrl: process.env[environmentNames.telnyxApiBaseUrl],
  };
  const key = registering(`telnyx:${apiKey}:${publicKey}:${Object.values(settings).join(":")}`, registrars);
  let provider = cache.get(key);
  if (!provider) {
    const present = Object.fromEntries(Object.entries(settings).filter(([, value]) => value)) as {
      [name in keyof typeof settings]?: string;
    };
    provider = createTelnyxProvider({
      apiKey,
      publicKey,
      ...present,
      ...(registrars ? { registrar: registrars.telnyx } : {}),
    });
    cache.set(key, provider);
  }
  return provider;
}

/**
 * The provider a webhook names, once its signature checks out: the one gate of
 * every carrier callback (messages and calls). Unknown provider: 404; a missing
 * or wrong signature: 403, before anything in the body is believed.
 */
export function verifiedProvider(providerName: string, request: WebhookRequest, registrars?: Registrars): ProviderPort {
  const provider = providerByName(providerName, registrars);
  if (!provider) throw new NotFoundError("Provider", providerName);
  if (!provider.verifyWebhookSignature(request))
    throw new ForbiddenError("The webhook signature is missing or does not match.");
  return provider;
}
