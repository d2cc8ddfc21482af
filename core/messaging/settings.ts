import { DEFAULT_QUIET_HOURS_WINDOW } from "#core/messaging/quiet-hours";
import { organizationProfile, type Organization } from "#core/organizations/profile";
import { storedSettingsItem } from "#core/messaging/settings-item";
import {
  DEFAULT_INBOUND_CALLS,
  DEFAULT_KEYWORDS,
  DEFAULT_OUTBOUND_CALLS,
  type MessagingSettings,
} from "#core/messaging/settings-schema";

export {
  DEFAULT_INBOUND_CALLS,
  DEFAULT_OUTBOUND_CALLS,
  KeywordsSchema,
  MessagingSettingsResponseSchema,
  MessagingSettingsSchema,
  type MessagingSettings,
  type MessagingSettingsInput,
} from "#core/messaging/settings-schema";

const defaults = (organizationName: string): Omit<MessagingSettings, "modifiedAt"> => ({
  quietHours: DEFAULT_QUIET_HOURS_WINDOW,
  inboundCalls: DEFAULT_INBOUND_CALLS,
  outboundCalls: DEFAULT_OUTBOUND_CALLS,
  keywords: DEFAULT_KEYWORDS,
  provider: null,
  failoverProvider: null,
  requireRegisteredSenders: false,
  helpText: `${organizationName}: reply STOP to unsubscribe, START to resubscribe. Msg & data rates may apply.`,
  optOutConfirmationText: `${organizationName}: you are unsubscribed and will receive no further messages. Reply START to resubscribe.`,
  optInConfirmationText: `${organizationName}: you are subscribed again. Reply STOP to unsubscribe, HELP for help.`,
});

/** The settings as the API shows them: the stored item over the defaults. */
export function settingsOf(
  item: Record<string, unknown> | undefined,
  organizationName: string | undefined,
): MessagingSettings {
  const stored = (item ?? {}) as Partial<MessagingSettings>;
  const base = defaults(organizationName ?? "We");
  return {
    quietHours: stored.quietHours ?? base.quietHours,
    inboundCalls: stored.inboundCalls ?? base.inboundCalls,
    outboundCalls: stored.outboundCalls ?? base.outboundCalls,
    keywords: stored.keywords ?? base.keywords,
    provider: stored.provider ?? base.provider,
    failoverProvider: stored.failoverProvider ?? base.failoverProvider,
    requireRegisteredSenders: stored.requireRegisteredSenders ?? base.requireRegisteredSenders,
    helpText: stored.helpText ?? base.helpText,
    optOutConfirmationText: stored.optOutConfirmationText ?? base.optOutConfirmationText,
    optInConfirmationText: stored.optInConfirmationText ?? base.optInConfirmationText,
    modifiedAt: stored.modifiedAt ?? null,
  };
}

/** `organization` lets a caller that reads the organization anyway share that read. */
export async function read(
  organizationId: string,
  organization: Promise<Organization | undefined> = organizationProfile(organizationId),
): Promise<MessagingSettings> {
  const [Item, owner] = await Promise.all([storedSettingsItem.read(organizationId), organization]);
  return settingsOf(Item, owner?.name);
}
