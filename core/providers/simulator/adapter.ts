import { createHmac, randomBytes, randomInt } from "node:crypto";
import { createSimulatorRegistrar } from "#core/providers/simulator/registration";
import { messageLifecycle, type CallStatus, type MessageStatus } from "#core/shared/status";
import {
  ProviderError,
  type AvailableNumber,
  type AvailableNumberQuery,
  type CallStatusReport,
  type HandOffReference,
  type MessageStatusReport,
  type OwnedNumber,
  type PlaceCallInput,
  type PlaceCallResult,
  type ProviderPort,
  type SendMessageInput,
  type SendMessageResult,
} from "#core/providers/port";
import { dialOutcome, parseDial, type SimulatedDial } from "#core/providers/simulator/calls";
import {
  CALL_SCENARIOS,
  callScenario,
  magicSuffix,
  MESSAGE_SCENARIOS,
  messageScenario,
  sendAttemptError,
  SIMULATOR_DELAYS,
  type SimulatedCallback,
} from "#core/providers/simulator/numbers";
import { createTwilioProvider } from "#core/providers/twilio/adapter";
import { twilioSignature } from "#core/providers/twilio/signature";

/**
 * The local carrier simulator: accepts sends and calls like a carrier, then
 * posts status callbacks to the webhook route a real provider uses, form-encoded
 * and signed exactly as Twilio signs them (X-Twilio-Signature, HMAC-SHA1 with
 * the simulator's auth token). The destination number picks the outcome
 * (core/providers/simulator/numbers.ts, docs/provider-simulator.md).
 *
 * State (attempts per idempotency key, accepted sends) lives in this process:
 * the local stack runs every function in one process. It is not for AWS.
 * Call status on request (`fetchCallStatus`) needs no state: the call id
 * carries the placement time and scenario, signed (`simulatedCallId`).
 */

export interface SimulatorOptions {
  authToken: string;
  /** Multiplies the documented callback delays (tests shorten them). */
  delayScale?: number;
  fetch?: typeof fetch;
}

const TWILIO_MESSAGE_WORD: Partial<Record<MessageStatus, string>> = {
  Queued: "queued",
  Sending: "sending",
  Sent: "sent",
  Delivered: "delivered",
  Undelivered: "undelivered",
  Failed: "failed",
};
export const TWILIO_CALL_WORD: Record<CallStatus, string> = {
  Queued: "queued",
  Ringing: "ringing",
  InProgress: "in-progress",
  Completed: "completed",
  Busy: "busy",
  NoAnswer: "no-answer",
  Failed: "failed",
  Canceled: "canceled",
};

const attempts = new Map<string, number>();
const accepted = new Map<string, SendMessageResult>();
const acceptedCalls = new Map<string, PlaceCallResult>();

/** The simulator's account id, as it appears in its callbacks. */
/** Who watches the simulated carrier accept sends (the pacing bench reads each number's throughput from the carrier's side). */
const sendWatchers = new Set<(send: { from: string; to: string; at: number }) => void>();

/** Calls `watcher` for every send the simulator accepts, with when; answers the function that stops watching. */
export function watchSimulatedSends(watcher: (send: { from: string; to: string; at: number }) => void): () => void {
  sendWatchers.add(watcher);
  return () => sendWatchers.delete(watcher);
}

export const SIMULATOR_ACCOUNT_SID = "ACsimulator000000000000000000000000";

export function createSimulatorProvider(options: SimulatorOptions): ProviderPort {
  const webhooks = createTwilioProvider({ accountSid: SIMULATOR_ACCOUNT_SID, authToken: options.authToken });
  const scale = options.delayScale ?? 1;
  const post = (url: string, params: [string, string][]) =>
    signedPost(options.authToken, url, params, options.fetch ?? fetch);

  /**
   * Posts the callbacks in order, each when it is due and not before the previous one was answered (as `playDial`
   * does): a scenario's order is the order the receiver handles them in, however busy it is. Independent timers let
   * a slow "delivered" be overtaken by the "sent" posted after it (scenario 09), or a slow "sent" by the "delivered".
   * A duplicated callback (`twice`) is posted 5 ms after its original, without waiting for it.
   */
  function emit<S extends string>(
    url: string | undefined,
    callbacks: SimulatedCallback<S>[],
    twice: boolean,
    params: (callback: SimulatedCallback<S>) => [string, string][],
  ) {
    if (!url) return;
    const start = Date.now();
    // Unreferenced timers: a pending callback (a 60 s ring-out) must not keep a finished process alive.
    const until = (at: number) =>
      new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())).unref());
    const fire = (callback: SimulatedCallback<S>) =>
      post(url, params(callback)).then(
        () => undefined,
        () => undefined,
      );
    void (async () => {
      for (const callback of callbacks) {
        if (callback.lost) continue;
        const due = start + callback.afterMs * scale;
        await until(due);
        await Promise.all([
          fire(callback),
          twice ? until(Math.max(due, Date.now()) + 5).then(() => fire(callback)) : undefined,
        ]);
      }
    })();
  }

  return {
    name: "simulator",
    registration: createSimulatorRegistrar(),

    async sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
      const previous = accepted.get(input.idempotencyKey);
      if (previous) return previous;
      const attempt = (attempts.get(input.idempotencyKey) ?? 0) + 1;
      attempts.set(input.idempotencyKey, attempt);
      const scenario = messageScenario(input.to);
      const error = sendAttemptError(scenario, attempt);
      if (error)
        throw new ProviderError(error.kind, error.code, error.message, {
          httpStatus: error.kind === "transient" ? 429 : 400,
        });
      const result: SendMessageResult = {
        providerMessageId: simulatedId("SM", options.authToken, input.to, MESSAGE_SCENARIOS, "00"),
        status: "Queued",
      };
      accepted.set(input.idempotencyKey, result);
      for (const watcher of sendWatchers) watcher({ from: input.from, to: input.to, at: Date.now() });
      emit(input.statusCallbackUrl, scenario.callbacks, scenario.duplicateCallbacks === true, (callback) => [
        ["AccountSid", SIMULATOR_ACCOUNT_SID],
        ["MessageSid", result.providerMessageId],
        ["SmsSid", result.providerMessageId],
        ["MessageStatus", TWILIO_MESSAGE_WORD[callback.status] ?? "sent"],
        ["From", input.from],
        ["To", input.to],
        ...(callback.errorCode ? ([["ErrorCode", callback.errorCode]] as [string, string][]) : []),
      ]);
      return result;
    },

    async placeCall(input: PlaceCallInput): Promise<PlaceCallResult> {
      const previous = acceptedCalls.get(input.idempotencyKey);
      if (previous) return previous;
      const attempt = (attempts.get(input.idempotencyKey) ?? 0) + 1;
      attempts.set(input.idempotencyKey, attempt);
      const scenario = callScenario(input.to);
      const error = sendAttemptError(scenario, attempt);
      if (error) throw new ProviderError(error.kind, error.code, error.message, { httpStatus: 400 });
      const result: PlaceCallResult = {
        providerCallId: simulatedId("CA", options.authToken, input.to, CALL_SCENARIOS, "20"),
        status: "Queued",
      };
      acceptedCalls.set(input.idempotencyKey, result);
      const leg = { providerCallId: result.providerCallId, from: input.from, to: input.to };
      const dial = input.instructions ? parseDial(input.instructions) : undefined;
      const answered = scenario.callbacks.some((callback) => callback.status === "InProgress");
      if (dial && answered && !scenario.silent && input.statusCallbackUrl) {
        // The business side answers and hears the instructions: the Dial decides the rest.
        const statusUrl = input.statusCallbackUrl;
        void playDial({
          leg,
          dial,
          statusUrl,
          post,
          delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms * scale).unref()),
        }).catch(() => undefined);
        return result;
      }
      emit(scenario.silent ? undefined : input.statusCallbackUrl, scenario.callbacks, false, (callback) => [
        ...outboundCallParams(leg, TWILIO_CALL_WORD[callback.status]),
        ...(callback.status === "Completed"
          ? ([["CallDuration", String(scenario.durationSeconds)]] as [string, string][])
          : []),
        ...(callback.status === "Completed" && scenario.recording
          ? ([["RecordingUrl", `https://simulator.invalid/recordings/${result.providerCallId}`]] as [string, string][])
          : []),
        ...(callback.errorCode ? ([["ErrorCode", callback.errorCode]] as [string, string][]) : []),
      ]);
      return result;
    },

    // What this carrier took, by the idempotency key it was sent with (its memory is this process's: a restarted
    // simulator took nothing, and its callbacks of before died with it).
    async findSentMessage(reference: HandOffReference): Promise<SendMessageResult | undefined> {
      const taken = accepted.get(reference.idempotencyKey);
      return taken && !reference.exclude?.includes(taken.providerMessageId) ? taken : undefined;
    },

    async findPlacedCall(reference: HandOffReference): Promise<PlaceCallResult | undefined> {
      return acceptedCalls.get(reference.idempotencyKey);
    },

    async fetchMessageStatus(providerMessageId: string): Promise<MessageStatusReport | undefined> {
      const sent = readSimulatedId("SM", options.authToken, providerMessageId, MESSAGE_SCENARIOS);
      if (!sent) return undefined;
      const reached = sent.scenario.callbacks.filter((callback) => callback.afterMs * scale <= Date.now() - sent.at);
      // Callbacks may be posted out of order (scenario 09): the carrier's state is the final one once reached.
      const latest = reached.find((callback) => messageLifecycle.isFinal(callback.status)) ?? reached.at(-1);
      const status = latest?.status ?? "Queued";
      return {
        providerMessageId,
        status,
        providerStatus: TWILIO_MESSAGE_WORD[status] ?? "queued",
        ...(latest?.errorCode ? { errorCode: latest.errorCode } : {}),
      };
    },

    async fetchCallStatus(providerCallId: string): Promise<CallStatusReport | undefined> {
      const placed = readSimulatedId("CA", options.authToken, providerCallId, CALL_SCENARIOS);
      if (!placed) return undefined;
      const elapsed = Date.now() - placed.at;
      const reached = placed.scenario.callbacks.filter((callback) => callback.afterMs * scale <= elapsed).at(-1);
      const status = reached?.status ?? "Queued";
      return {
        providerCallId,
        status,
        providerStatus: TWILIO_CALL_WORD[status],
        direction: "outbound",
        ...(status === "Completed" ? { durationSeconds: placed.scenario.durationSeconds } : {}),
      };
    },

    async searchAvailableNumbers(query: AvailableNumberQuery): Promise<AvailableNumber[]> {
      const areaCode = query.areaCode ?? "212";
      return Array.from({ length: query.limit }, () => ({
        phoneNumber: availableNumber(areaCode),
        region: query.region ?? null,
        locality: null,
        capabilities: ["sms", "mms", "voice"],
      }));
    },

    async buyNumber(phoneNumber: string): Promise<OwnedNumber> {
      if (magicSuffix(phoneNumber) === NOT_OURS)
        throw new ProviderError("permanent", "21422", "PhoneNumber requested is not available", { httpStatus: 400 });
      return { providerNumberId: simulatedNumberId(options.authToken, phoneNumber), phoneNumber };
    },

    async findOwnedNumber(phoneNumber: string): Promise<OwnedNumber | undefined> {
      return magicSuffix(phoneNumber) === NOT_OURS
        ? undefined
        : { providerNumberId: simulatedNumberId(options.authToken, phoneNumber), phoneNumber };
    },

    async configureNumber(): Promise<void> {},

    async releaseNumber(): Promise<void> {},

    parseStatusCallback: (request) => webhooks.parseStatusCallback(request),
    parseDialResult: (request) => webhooks.parseDialResult(request),
    parseInboundMessage: (request) => webhooks.parseInboundMessage(request),
    verifyWebhookSignature: (request) => webhooks.verifyWebhookSignature(request),
  };
}

type OutboundLeg = { providerCallId: string; from: string; to: string };

/** The parameters of every request about an outbound call's own leg, as Twilio posts them. */
function outboundCallParams(leg: OutboundLeg, status: string): [string, string][] {
  return [
    ["AccountSid", SIMULATOR_ACCOUNT_SID],
    ["CallSid", leg.providerCallId],
    ["CallStatus", status],
    ["Direction", "outbound-api"],
    ["From", leg.from],
    ["To", leg.to],
    ["Timestamp", new Date().toUTCString()],
  ];
}

/**
 * An answered outbound call whose instructions are a `<Dial>` (a bridged
 * click-to-call), played in order as the carrier does: the leg rings and is
 * answered; the dialed number's scenario decides the Dial's outcome, posted
 * to its action URL; only then does the leg end, `completed`, its duration
 * the Dial's talk time plus the few seconds before it.
 */
async function playDial(input: {
  leg: OutboundLeg;
  dial: SimulatedDial;
  statusUrl: string;
  post: (url: string, params: [string, string][]) => Promise<Response>;
  delay: (ms: number) => Promise<void>;
}): Promise<void> {
  const { leg, dial, statusUrl, post, delay } = input;
  await delay(SIMULATOR_DELAYS.ringing);
  await post(statusUrl, outboundCallParams(leg, "ringing"));
  await delay(SIMULATOR_DELAYS.answered - SIMULATOR_DELAYS.ringing);
  await post(statusUrl, outboundCallParams(leg, "in-progress"));
  const outcome = dialOutcome(dial.forwardTo);
  await post(dial.action, [
    ...outboundCallParams(leg, "in-progress"),
    ["DialCallSid", `CA${randomBytes(16).toString("hex")}`],
    ["DialCallStatus", outcome.word],
    ["DialCallDuration", String(outcome.talkSeconds)],
  ]);
  await post(statusUrl, [...outboundCallParams(leg, "completed"), ["CallDuration", String(outcome.talkSeconds + 5)]]);
}

/**
 * A simulated message or call id, `SM`/`CA` + 32 hex like Twilio's, that
 * carries what the simulator needs to answer for it in any process: the time
 * it was accepted (12), the scenario digits (2), a nonce (6) and an HMAC of
 * those with the auth token (12).
 */
function simulatedId(
  prefix: "SM" | "CA",
  authToken: string,
  to: string,
  scenarios: Readonly<Record<string, unknown>>,
  fallback: string,
): string {
  const suffix = magicSuffix(to);
  const body = `${Date.now().toString(16).padStart(12, "0")}${suffix !== undefined && scenarios[suffix] ? suffix : fallback}${randomBytes(3).toString("hex")}`;
  return `${prefix}${body}${idTag(prefix, authToken, body)}`;
}

function readSimulatedId<T>(
  prefix: "SM" | "CA",
  authToken: string,
  providerId: string,
  scenarios: Readonly<Record<string, T>>,
) {
  const match = /^(SM|CA)(([0-9a-f]{12})(\d{2})[0-9a-f]{6})([0-9a-f]{12})$/.exec(providerId);
  if (!match || match[1] !== prefix || idTag(prefix, authToken, match[2]!) !== match[5]) return undefined;
  const scenario = scenarios[match[4]!];
  return scenario ? { at: Number.parseInt(match[3]!, 16), scenario } : undefined;
}

function idTag(prefix: "SM" | "CA", authToken: string, body: string): string {
  // Calls keep their original tag label, so ids issued before messages had one still read.
  return createHmac("sha256", authToken)
    .update(`${prefix === "CA" ? "call" : "message"}:${body}`)
    .digest("hex")
    .slice(0, 12);
}

/**
 * The simulated carrier account holds every number but those ending 555-0198
 * (under any area code): another business's, which it can neither sell nor
 * prove ownership of.
 */
const NOT_OURS = "98";

/** A number id (`PN` + 32 hex) that is the same for the same number in any process. */
function simulatedNumberId(authToken: string, phoneNumber: string): string {
  return `PN${createHmac("sha256", authToken).update(`number:${phoneNumber}`).digest("hex").slice(0, 32)}`;
}

/** A random number under the area code, outside the 555 exchange (never a magic number). */
function availableNumber(areaCode: string): string {
  for (;;) {
    const exchange = 200 + randomInt(800);
    if (exchange !== 555 && exchange % 100 !== 11)
      return `+1${areaCode}${exchange}${String(randomInt(10_000)).padStart(4, "0")}`;
  }
}

/** Posts a form signed like Twilio; retries twice on a network error or 5xx (providers retry too). */
export async function signedPost(
  authToken: string,
  url: string,
  params: [string, string][],
  doFetch: typeof fetch = fetch,
): Promise<Response> {
  const signature = twilioSignature(authToken, url, params);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const response = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
        body: new URLSearchParams(params).toString(),
      });
      if (response.status < 500) return response;
      lastError = new Error(`HTTP ${response.status}`);
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
  }
  throw lastError;
}

/** The simulator's webhook token, derived from the stage's token-signing key (so nothing extra to configure). */
export function simulatorAuthToken(tokenSigningKey: string): string {
  return createHmac("sha256", tokenSigningKey).update("carrier-simulator-webhooks").digest("base64url");
}

/** Simulates a text from a contact to one of our numbers: posts the provider's inbound webhook, signed. */
export async function simulateInboundMessage(input: {
  baseUrl: string;
  authToken: string;
  from: string;
  to: string;
  body: string;
  media?: { url: string; contentType: string }[];
  providerMessageId?: string;
  /** As Twilio Advanced Opt-Out adds it when it matched (and answered) a keyword itself. */
  optOutType?: "STOP" | "START" | "HELP";
}): Promise<{ status: number; providerMessageId: string }> {
  const providerMessageId = input.providerMessageId ?? `SM${randomBytes(16).toString("hex")}`;
  const media = input.media ?? [];
  const params: [string, string][] = [
    ["AccountSid", SIMULATOR_ACCOUNT_SID],
    ["MessageSid", providerMessageId],
    ["SmsSid", providerMessageId],
    ["From", input.from],
    ["To", input.to],
    ["Body", input.body],
    ["NumMedia", String(media.length)],
    ...(input.optOutType ? ([["OptOutType", input.optOutType]] as [string, string][]) : []),
    ...media.flatMap((item, index): [string, string][] => [
      [`MediaUrl${index}`, item.url],
      [`MediaContentType${index}`, item.contentType],
    ]),
  ];
  const response = await signedPost(
    input.authToken,
    `${input.baseUrl.replace(/\/$/, "")}/webhooks/simulator/messages/inbound`,
    params,
  );
  return { status: response.status, providerMessageId };
}
