import type { CallStatus, MessageStatus } from "#core/shared/status";
import type { TenDlcRegistrar } from "#core/providers/registration";

/**
 * The carrier provider port: what messaging and calls need from a carrier,
 * independent of which one. Adapters: the local carrier simulator and Twilio
 * (core/providers/twilio). Numbers are E.164 throughout.
 */

export type ProviderName = "twilio" | "simulator" | "telnyx";

export type OutboundMedia = { url: string; contentType?: string };

export type SendMessageInput = {
  from: string;
  to: string;
  body?: string;
  media?: readonly OutboundMedia[];
  /**
   * Stable for one message across redeliveries (our message id). Twilio has no
   * idempotency header for Messages, so at-most-once sending is enforced on our
   * side: a conditional claim of the message (Queued → Sending) in storage
   * before the call; the key is passed to providers that support one.
   */
  idempotencyKey: string;
  statusCallbackUrl?: string;
};

export type SendMessageResult = {
  providerMessageId: string;
  status: MessageStatus;
  /** Segments as counted by the provider, when it says. */
  segments?: number;
};

export type PlaceCallInput = {
  from: string;
  to: string;
  idempotencyKey: string;
  statusCallbackUrl?: string;
  /** URL the provider fetches call instructions from when the call connects. */
  answerUrl?: string;
  /** Inline call instructions (TwiML for Twilio), used when no answerUrl is given. */
  instructions?: string;
  record?: boolean;
  /** Seconds to let the call ring before giving up (no-answer). */
  ringTimeoutSeconds?: number;
  /** Longest the call may last once answered; the provider hangs up there (the billing reservation covers exactly this). */
  timeLimitSeconds?: number;
};

/** What identifies a hand-off cut short by a crash: our id (sent as the idempotency key), the numbers, and when it was claimed. */
export type HandOffReference = {
  idempotencyKey: string;
  from: string;
  to: string;
  since: string;
  /** Provider ids of the same message's earlier attempts the carrier refused (throttling): never this hand-off. */
  exclude?: readonly string[];
};

export type PlaceCallResult = { providerCallId: string; status: CallStatus };

/** A number the carrier offers for purchase. */
export type AvailableNumber = {
  phoneNumber: string;
  /** State or province (Twilio `region`), when the carrier says. */
  region: string | null;
  locality: string | null;
  capabilities: ("sms" | "mms" | "voice")[];
};

export type AvailableNumberQuery = {
  /** ISO country; US only for now. */
  country: "US";
  areaCode?: string;
  /** Two-letter state. */
  region?: string;
  /** Every listed capability is required. */
  capabilities: readonly ("sms" | "mms" | "voice")[];
  limit: number;
};

/** Where the carrier sends a number's inbound messages and calls (configured on purchase or registration). */
export type NumberWebhooks = { smsUrl: string; voiceUrl: string; voiceStatusCallbackUrl: string };

/** A number held by our carrier account (Twilio: an IncomingPhoneNumber, `PN…`). */
export type OwnedNumber = { providerNumberId: string; phoneNumber: string };

/** A call's status as the provider reports it when asked (Twilio: the Call resource). */
export type CallStatusReport = {
  providerCallId: string;
  status: CallStatus;
  /** The provider's own word ("completed"). */
  providerStatus: string;
  direction: "inbound" | "outbound";
  /** Talk time, once the call ended. */
  durationSeconds?: number;
};

/** A message's status as the provider reports it when asked (Twilio: the Message resource). */
export type MessageStatusReport = {
  providerMessageId: string;
  status: MessageStatus;
  /** The provider's own word ("delivered"). */
  providerStatus: string;
  errorCode?: string;
};

/**
 * transient: retry later with backoff (rate limits, carrier queue overflow,
 * provider 5xx, network errors). permanent: never retry (invalid or
 * non-mobile number, unsupported region, bad configuration). optedOut: the
 * recipient unsubscribed at the carrier; add the number to the suppression list.
 */
export type ProviderErrorKind = "transient" | "permanent" | "optedOut";

/** A provider refused or could not take a send or call. */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    /** Provider error code ("21610") or our own for transport failures ("network_error", "timeout"). */
    readonly code: string,
    message: string,
    readonly details: {
      httpStatus?: number;
      retryAfterSeconds?: number;
      /**
       * The request may have reached the provider (timeout, connection lost
       * after sending): a blind retry could send twice. Reconcile before retrying.
       */
      ambiguous?: boolean;
    } = {},
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/** A webhook request as received, before any parsing. */
export type WebhookRequest = {
  /** The full public URL the provider called, query string included, exactly as configured at the provider. */
  url: string;
  /** Header names in any case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body (form-encoded for Twilio; JSON when the provider says so). */
  body: string;
};

export type MessageStatusEvent = {
  type: "message.status";
  providerMessageId: string;
  status: MessageStatus;
  /** The provider's own status word ("undelivered"), kept for the record. */
  providerStatus: string;
  errorCode?: string;
  from?: string;
  to?: string;
  /** Stable id of this callback: the same delivery retried by the provider has the same key. */
  dedupKey: string;
};

export type CallStatusEvent = {
  type: "call.status";
  providerCallId: string;
  status: CallStatus;
  providerStatus: string;
  direction: "inbound" | "outbound";
  from: string;
  to: string;
  durationSeconds?: number;
  recordingUrl?: string;
  errorCode?: string;
  /** When the provider says the change happened (ISO UTC). */
  occurredAt?: string;
  dedupKey: string;
};

/**
 * The result of a `<Dial>` (Twilio: its action request, `DialCallStatus`/
 * `DialCallDuration`): whether the dialed number answered — the forwarded
 * number of an inbound call, or the lead of a bridged outbound call.
 */
export type DialResultEvent = {
  type: "call.dial";
  /** The caller's call (the parent leg). */
  providerCallId: string;
  /** The parent leg's direction: inbound for a forwarded call, outbound for a bridged click-to-call (its From is our number). */
  direction: "inbound" | "outbound";
  /** The forwarded leg's outcome: Completed when a person answered, else Busy, NoAnswer, Failed or Canceled. */
  status: CallStatus;
  /** The provider's word ("no-answer"). */
  providerStatus: string;
  /** Talk time of the forwarded leg. */
  durationSeconds?: number;
  dialedCallId?: string;
  from: string;
  to: string;
  dedupKey: string;
};

export type InboundMessage = {
  type: "message.inbound";
  providerMessageId: string;
  from: string;
  to: string;
  body: string;
  media: { url: string; contentType: string }[];
  segments?: number;
  /**
   * The carrier recognised a compliance keyword itself and already answered
   * the contact (Twilio Advanced Opt-Out: `OptOutType` STOP/START/HELP).
   */
  carrierKeyword?: { kind: "OptOut" | "OptIn" | "Help"; word: string };
  dedupKey: string;
};

/** Status callbacks: message receipts, call progress, and inbound calls (which start Ringing). */
export type ProviderEvent = MessageStatusEvent | CallStatusEvent;

export interface ProviderPort {
  readonly name: ProviderName;
  /** Hands a message to the carrier; throws ProviderError when it is refused. */
  sendMessage(input: SendMessageInput): Promise<SendMessageResult>;
  /** Starts an outbound call; throws ProviderError when it is refused. */
  placeCall(input: PlaceCallInput): Promise<PlaceCallResult>;
  /**
   * Asks the provider for a call's current status (the call sweep, when its
   * callbacks never came); undefined for a call the provider does not know.
   * Optional: an adapter that cannot ask leaves the sweep to end the call.
   */
  fetchCallStatus?(providerCallId: string): Promise<CallStatusReport | undefined>;
  /**
   * Asks the provider for a message's current status (the message sweep, when
   * its final receipt never came); undefined for a message the provider does
   * not know. Optional: without it the sweep can only end the message Unknown.
   */
  fetchMessageStatus?(providerMessageId: string): Promise<MessageStatusReport | undefined>;
  /**
   * Finds the message the carrier took for our reference (the `idempotencyKey` it was sent with; from, to, body and
   * the claim time for carriers that can only search), when the hand-off was cut short before its answer was stored.
   * Undefined when the carrier never took it. Optional: without it such a message waits for the receipt timeout.
   */
  findSentMessage?(reference: HandOffReference & { body?: string }): Promise<SendMessageResult | undefined>;
  /** Finds the call the carrier placed for our reference, like `findSentMessage`. Optional: without it the call waits for its deadline. */
  findPlacedCall?(reference: HandOffReference): Promise<PlaceCallResult | undefined>;
  /**
   * How long after a hand-off's claim a miss of `findSentMessage`/`findPlacedCall` can be trusted: a carrier whose
   * search is eventually consistent (Telnyx's detail records and TeXML call list) may not list what it took a moment
   * ago. Before then a miss means "ask again later", never "send again". Absent: a miss is final at once.
   */
  readonly handOffSearchSettleMs?: number;
  /** Numbers the carrier offers (Twilio AvailablePhoneNumbers). Optional, like every number operation below. */
  searchAvailableNumbers?(query: AvailableNumberQuery): Promise<AvailableNumber[]>;
  /** Buys a number into our account with its webhooks configured; throws ProviderError when refused (taken meanwhile). */
  buyNumber?(phoneNumber: string, webhooks: NumberWebhooks): Promise<OwnedNumber>;
  /** The number when our carrier account holds it (proof of ownership for a bring-your-own number), else undefined. */
  findOwnedNumber?(phoneNumber: string): Promise<OwnedNumber | undefined>;
  /** Points a held number's webhooks at us. */
  configureNumber?(providerNumberId: string, webhooks: NumberWebhooks): Promise<void>;
  /** Releases a held number at the carrier; a number it no longer holds is already released. */
  releaseNumber?(providerNumberId: string): Promise<void>;
  /** 10DLC brand and campaign registration through the carrier's ISV API (core/providers/registration.ts). */
  readonly registration?: TenDlcRegistrar;
  /** Normalised events of a status-callback request ([] for callbacks we do not track). */
  parseStatusCallback(request: WebhookRequest): ProviderEvent[];
  /** The forwarding result of a Dial action request; undefined when it carries no outcome we know. */
  parseDialResult(request: WebhookRequest): DialResultEvent | undefined;
  /** The inbound message of an incoming-message webhook. */
  parseInboundMessage(request: WebhookRequest): InboundMessage;
  /** True only for a request signed by the provider for exactly this URL and body. */
  verifyWebhookSignature(request: WebhookRequest): boolean;
}

/** Reads a header whatever the case of its name. */
export function headerValue(headers: WebhookRequest["headers"], name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
}
