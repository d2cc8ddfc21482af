import * as v from "valibot";
import { providerConfig } from "#core/providers/config";
import { table } from "#core/db/items";
import { maxChars } from "#core/shared/validation";
import type { Actor } from "#core/auth/actor";
import { entities, keys } from "#core/db/keys";
import { ValidationError } from "#core/errors";
import { classifyInbound, normalizeKeyword } from "#core/messaging/keywords";
import { PhoneNumberInput, PhoneNumbers } from "#core/messaging/phone-numbers";
import { DEFAULT_QUIET_HOURS_WINDOW, quietHoursWindowSchema } from "#core/messaging/quiet-hours";
import { Organizations, type Organization } from "#core/organizations/index";
import { providerByName } from "#core/providers/index";
import { nowIso, timestamp } from "#core/shared/ids";
import { storedSettingsItem } from "#core/messaging/settings-item";

/** What happens to calls to the organization's numbers: forwarded to a person, or answered with a closed message (missed). */
export const DEFAULT_INBOUND_CALLS = { forwardTo: null, ringSeconds: 20 } as const;

const InboundCallsSchema = v.strictObject({
  /** Where inbound calls ring (E.164); null: nobody takes calls, every inbound call is missed. */
  forwardTo: v.optional(v.nullable(PhoneNumberInput), DEFAULT_INBOUND_CALLS.forwardTo),
  /** Seconds the forwarding number rings before the call counts as missed. */
  ringSeconds: v.optional(
    v.pipe(v.number(), v.integer("Must be a whole number of seconds."), v.minValue(5, "At least 5 seconds."), v.maxValue(60, "At most 60 seconds.")),
    DEFAULT_INBOUND_CALLS.ringSeconds,
  ),
});

/** Click-to-call (`POST /calls`, PlaceCall): the business side rung first, then connected to the lead. */
export const DEFAULT_OUTBOUND_CALLS = { connectTo: null, whisper: null } as const;

const OutboundCallsSchema = v.strictObject({
  /** The phone (E.164) rung first for outbound calls that name no `connectTo`; null: the lead is called directly. */
  connectTo: v.optional(v.nullable(PhoneNumberInput), DEFAULT_OUTBOUND_CALLS.connectTo),
  /** Said to the business side before the lead is dialed. */
  whisper: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(320))), DEFAULT_OUTBOUND_CALLS.whisper),
});

const keywordList = v.optional(
  v.pipe(
    v.array(
      v.pipe(
        v.string(),
        v.transform(normalizeKeyword),
        v.regex(/^[\p{L}\p{N}]{2,20}$/u, "Each keyword is one word of 2-20 letters or digits."),
        v.check((keyword) => classifyInbound(keyword).kind === "Message", "The standard keywords (STOP, START, HELP…) are always recognised; list only extra ones."),
      ),
    ),
    v.maxLength(20, "At most 20 keywords per list."),
  ),
  [],
);

/** Extra compliance keywords of the organization, on top of the standard STOP/START/HELP sets. */
export const KeywordsSchema = v.strictObject({ optOut: keywordList, optIn: keywordList, help: keywordList });
const DEFAULT_KEYWORDS = { optOut: [], optIn: [], help: [] };

/** An organization's messaging settings; every field has a default. */
export const MessagingSettingsSchema = v.strictObject({
  quietHours: v.optional(quietHoursWindowSchema, DEFAULT_QUIET_HOURS_WINDOW),
  inboundCalls: v.optional(InboundCallsSchema, DEFAULT_INBOUND_CALLS),
  outboundCalls: v.optional(OutboundCallsSchema, DEFAULT_OUTBOUND_CALLS),
  keywords: v.optional(KeywordsSchema, DEFAULT_KEYWORDS),
  /** The carrier this organization sends, calls and buys numbers through; null: the deployment's default. Only a configured one is accepted. */
  provider: v.optional(
    v.nullable(v.pipe(v.picklist(["simulator", "twilio", "telnyx"], "One of: simulator, twilio, telnyx."), v.description("A carrier configured on this stage (400 otherwise); null for the stage's default."))),
    null,
  ),
  /**
   * Optional failover: a send the provider refuses with a transient carrier-side error is handed to this one
   * instead (once, never after an ambiguous outcome). null: off. Must be configured and differ from `provider`.
   */
  failoverProvider: v.optional(
    v.nullable(v.pipe(v.picklist(["simulator", "twilio", "telnyx"], "One of: simulator, twilio, telnyx."), v.description("A carrier configured on this stage, other than the primary (400 otherwise); null turns failover off."))),
    null,
  ),
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
  helpText: v.string(),
  optOutConfirmationText: v.string(),
  optInConfirmationText: v.string(),
  modifiedAt: v.nullable(timestamp),
});
export type MessagingSettings = v.InferOutput<typeof MessagingSettingsResponseSchema>;

const defaults = (organizationName: string): Omit<MessagingSettings, "modifiedAt"> => ({
  quietHours: DEFAULT_QUIET_HOURS_WINDOW,
  inboundCalls: DEFAULT_INBOUND_CALLS,
  outboundCalls: DEFAULT_OUTBOUND_CALLS,
  keywords: DEFAULT_KEYWORDS,
  provider: null,
  failoverProvider: null,
  helpText: `${organizationName}: reply STOP to unsubscribe, START to resubscribe. Msg & data rates may apply.`,
  optOutConfirmationText: `${organizationName}: you are unsubscribed and will receive no further messages. Reply START to resubscribe.`,
  optInConfirmationText: `${organizationName}: you are subscribed again. Reply STOP to unsubscribe, HELP for help.`,
});

export const MessagingSettingsStore = {
  /** `organization` lets a caller that reads the organization anyway share that read. */
  async read(
    organizationId: string,
    organization: Promise<Organization | undefined> = Organizations.fromId(organizationId),
  ): Promise<MessagingSettings> {
    const [Item, owner] = await Promise.all([storedSettingsItem.read(organizationId), organization]);
    const stored = (Item ?? {}) as Partial<MessagingSettings>;
    const base = defaults(owner?.name ?? "We");
    return {
      quietHours: stored.quietHours ?? base.quietHours,
      inboundCalls: stored.inboundCalls ?? base.inboundCalls,
      outboundCalls: stored.outboundCalls ?? base.outboundCalls,
      keywords: stored.keywords ?? base.keywords,
      provider: stored.provider ?? base.provider,
      failoverProvider: stored.failoverProvider ?? base.failoverProvider,
      helpText: stored.helpText ?? base.helpText,
      optOutConfirmationText: stored.optOutConfirmationText ?? base.optOutConfirmationText,
      optInConfirmationText: stored.optInConfirmationText ?? base.optInConfirmationText,
      modifiedAt: stored.modifiedAt ?? null,
    };
  },

  /** `PUT /messaging/settings`: replaces the settings; omitted texts fall back to the defaults. */
  async replace(actor: Actor, input: MessagingSettingsInput): Promise<MessagingSettings> {
    const own = new Set((await PhoneNumbers.all(actor.organizationId)).map((number) => number.phoneNumber));
    const forwardTo = input.inboundCalls.forwardTo;
    if (forwardTo && own.has(forwardTo)) {
      throw new ValidationError("Calls cannot be forwarded to one of the organization's own numbers.", [
        { pointer: "/inboundCalls/forwardTo", detail: `${forwardTo} is a number of this organization; forward to a person's phone.` },
      ]);
    }
    if (input.provider && !providerByName(input.provider)) {
      throw new ValidationError("That provider is not configured on this deployment.", [
        { pointer: "/provider", detail: `${input.provider} has no credentials here; choose a configured provider or null for the default.` },
      ]);
    }
    if (input.failoverProvider) {
      const primary = input.provider ?? providerConfig.provider;
      const problem = !providerByName(input.failoverProvider)
        ? `${input.failoverProvider} has no credentials here; choose a configured provider or null to turn failover off.`
        : input.failoverProvider === primary
          ? `${input.failoverProvider} is already the organization's provider; fail over to another one.`
          : undefined;
      if (problem) throw new ValidationError("That failover provider cannot be used.", [{ pointer: "/failoverProvider", detail: problem }]);
    }
    const connectTo = input.outboundCalls.connectTo;
    if (connectTo && own.has(connectTo)) {
      throw new ValidationError("Outbound calls cannot ring one of the organization's own numbers first.", [
        { pointer: "/outboundCalls/connectTo", detail: `${connectTo} is a number of this organization; give a person's phone.` },
      ]);
    }
    const modifiedAt = nowIso();
    await table.put({
      Item: { ...keys.messagingSettings(actor.organizationId), entity: entities.messagingSettings, ...input, modifiedAt },
    });
    storedSettingsItem.forget(actor.organizationId);
    return MessagingSettingsStore.read(actor.organizationId);
  },
};
