import * as v from "valibot";
import { classifyInbound, normalizeKeyword } from "#core/messaging/keywords";
import { DEFAULT_QUIET_HOURS_WINDOW, quietHoursWindowSchema } from "#core/messaging/quiet-hours";
import { timestamp } from "#core/shared/ids";
import { PhoneNumberInput } from "#core/shared/phone-input";
import { maxChars } from "#core/shared/validation";

// Apart from settings.ts (the store, which checks the carriers and numbers a change names): the message routes'
// operations declare these schemas without bundling the carrier adapters.

/** What happens to calls to the organization's numbers: forwarded to a person, or answered with a closed message (missed). */
export const DEFAULT_INBOUND_CALLS = { forwardTo: null, ringSeconds: 20 } as const;

const InboundCallsSchema = v.strictObject({
  /** Where inbound calls ring (E.164); null: nobody takes calls, every inbound call is missed. */
  forwardTo: v.optional(v.nullable(PhoneNumberInput), DEFAULT_INBOUND_CALLS.forwardTo),
  /** Seconds the forwarding number rings before the call counts as missed. */
  ringSeconds: v.optional(
    v.pipe(
      v.number(),
      v.integer("Must be a whole number of seconds."),
      v.minValue(5, "At least 5 seconds."),
      v.maxValue(60, "At most 60 seconds."),
    ),
    DEFAULT_INBOUND_CALLS.ringSeconds,
  ),
});

/** Click-to-call (`POST /calls`, PlaceCall): the business side rung first, then connected to the lead. */
export const DEFAULT_OUTBOUND_CALLS = { connectTo: null, whisper: null } as const;

const OutboundCallsSchema = v.strictObject({
  /** The phone (E.164) rung first for outbound calls that name no `connectTo`; null: the lead is called directly. */
  connectTo: v.optional(v.nullable(PhoneNumberInput), DEFAULT_OUTBOUND_CALLS.connectTo),
  /** Said to the business side before the lead is dialed. */
  whisper: v.optional(
    v.nullable(v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(320))),
    DEFAULT_OUTBOUND_CALLS.whisper,
  ),
});

const keywordList = v.optional(
  v.pipe(
    v.array(
      v.pipe(
        v.string(),
        v.transform(normalizeKeyword),
        v.regex(/^[\p{L}\p{N}]{2,20}$/u, "Each keyword is one word of 2-20 letters or digits."),
        v.check(
          (keyword) => classifyInbound(keyword).kind === "Message",
          "The standard keywords (STOP, START, HELP…) are always recognised; list only extra ones.",
        ),
      ),
    ),
    v.maxLength(20, "At most 20 keywords per list."),
  ),
  [],
);

/** Extra compliance keywords of the organization, on top of the standard STOP/START/HELP sets. */
export const KeywordsSchema = v.strictObject({ optOut: keywordList, optIn: keywordList, help: keywordList });
export const DEFAULT_KEYWORDS = { optOut: [], optIn: [], help: [] };

/** An organization's messaging settings; every field has a default. */
export const MessagingSettingsSchema = v.strictObject({
  quietHours: v.optional(quietHoursWindowSchema, DEFAULT_QUIET_HOURS_WINDOW),
  inboundCalls: v.optional(InboundCallsSchema, DEFAULT_INBOUND_CALLS),
  outboundCalls: v.optional(OutboundCallsSchema, DEFAULT_OUTBOUND_CALLS),
  keywords: v.optional(KeywordsSchema, DEFAULT_KEYWORDS),
  /** The carrier this organization sends, calls and buys numbers through; null: the deployment's default. Only a configured one is accepted. */
  provider: v.optional(
    v.nullable(
      v.pipe(
        v.picklist(["simulator", "twilio", "telnyx"], "One of: simulator, twilio, telnyx."),
        v.description("A carrier configured on this stage (400 otherwise); null for the stage's default."),
      ),
    ),
    null,
  ),
  /**
   * Optional failover: a send the provider refuses with a transient carrier-side error is handed to this one
   * instead (once, never after an ambiguous outcome). null: off. Must be configured and differ from `provider`.
   */
  failoverProvider: v.optional(
    v.nullable(
      v.pipe(
        v.picklist(["simulator", "twilio", "telnyx"], "One of: simulator, twilio, telnyx."),
        v.description(
          "A carrier configured on this stage, other than the primary (400 otherwise); null turns failover off.",
        ),
      ),
    ),
    null,
  ),
  /**
   * true: send only from numbers attached to an approved 10DLC campaign, as deployed stages always do
   * (docs/providers.md); false: the stage decides.
   */
  requireRegisteredSenders: v.optional(v.boolean(), false),
  helpText: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(320))),
  optOutConfirmationText: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(320))),
  optInConfirmationText: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(320))),
});
export type MessagingSettingsInput = v.InferOutput<typeof MessagingSettingsSchema>;

export const MessagingSettingsResponseSchema = v.object({
  quietHours: v.object({ start: v.string(), end: v.string() }),
  inboundCalls: v.object({ forwardTo: v.nullable(v.string()), ringSeconds: v.number() }),
  outboundCalls: v.object({ connectTo: v.nullable(v.string()), whisper: v.nullable(v.string()) }),
  keywords: v.object({ optOut: v.array(v.string()), optIn: v.array(v.string()), help: v.array(v.string()) }),
  provider: v.nullable(v.string()),
  failoverProvider: v.nullable(v.string()),
  requireRegisteredSenders: v.boolean(),
  helpText: v.string(),
  optOutConfirmationText: v.string(),
  optInConfirmationText: v.string(),
  modifiedAt: v.nullable(timestamp),
});
export type MessagingSettings = v.InferOutput<typeof MessagingSettingsResponseSchema>;
