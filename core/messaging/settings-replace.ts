import { MessagingSettingsEntity } from "#core/db/entities/messaging";
import { where } from "#core/db/expression";
import { transact, Transaction, TransactionConditionFailed } from "#core/db/transact";
import * as Audit from "#core/audit/index";
import type { Actor } from "#core/auth/actor";
import { ConflictError, ValidationError } from "#core/errors";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { settingsOf } from "#core/messaging/settings";
import type { MessagingSettings, MessagingSettingsInput } from "#core/messaging/settings-schema";
import { storedSettingsItem } from "#core/messaging/settings-item";
import { organizationProfile } from "#core/organizations/profile";
import { providerByName, providerConfig } from "#core/providers/index";
import { nowIso } from "#core/shared/ids";

/**
 * `PUT /messaging/settings`: replaces the settings; omitted texts fall back to the defaults. Apart from
 * `MessagingSettingsStore` (whose `read` every send, call and carrier callback makes), so that those functions do not
 * bundle the checks, the versioned write and its audit entry.
 */
export async function replaceMessagingSettings(
  actor: Actor,
  input: MessagingSettingsInput,
): Promise<MessagingSettings> {
  const own = new Set((await PhoneNumbers.all(actor.organizationId)).map((number) => number.phoneNumber));
  const forwardTo = input.inboundCalls.forwardTo;
  if (forwardTo && own.has(forwardTo)) {
    throw new ValidationError("Calls cannot be forwarded to one of the organization's own numbers.", [
      {
        pointer: "/inboundCalls/forwardTo",
        detail: `${forwardTo} is a number of this organization; forward to a person's phone.`,
      },
    ]);
  }
  if (input.provider && !providerByName(input.provider)) {
    throw new ValidationError("That provider is not configured on this deployment.", [
      {
        pointer: "/provider",
        detail: `${input.provider} has no credentials here; choose a configured provider or null for the default.`,
      },
    ]);
  }
  if (input.failoverProvider) {
    const primary = input.provider ?? providerConfig.provider;
    const problem = !providerByName(input.failoverProvider)
      ? `${input.failoverProvider} has no credentials here; choose a configured provider or null to turn failover off.`
      : input.failoverProvider === primary
        ? `${input.failoverProvider} is already the organization's provider; fail over to another one.`
        : undefined;
    if (problem)
      throw new ValidationError("That failover provider cannot be used.", [
        { pointer: "/failoverProvider", detail: problem },
      ]);
  }
  const connectTo = input.outboundCalls.connectTo;
  if (connectTo && own.has(connectTo)) {
    throw new ValidationError("Outbound calls cannot ring one of the organization's own numbers first.", [
      {
        pointer: "/outboundCalls/connectTo",
        detail: `${connectTo} is a number of this organization; give a person's phone.`,
      },
    ]);
  }
  // The settings as they were, read consistently: the audit entry's "before", and the version the write expects.
  const identity = { organizationId: actor.organizationId };
  const [stored, organization] = await Promise.all([
    MessagingSettingsEntity.get(identity, { consistent: true }),
    organizationProfile(actor.organizationId),
  ]);
  const put = MessagingSettingsEntity.putAt(
    identity,
    { ...input, modifiedAt: nowIso() },
    { condition: stored ? where.equals("modifiedAt", stored.modifiedAt) : where.new() },
  );
  const item = put.Item;
  const before = settingsOf(stored, organization?.name);
  const after = settingsOf(item, organization?.name);
  try {
    // The change and its audit entry commit together or not at all. The condition (nobody changed the settings
    // since the read) keeps "before" true: a concurrent change makes this one a 409, with no entry.
    await transact(
      new Transaction().put("settings", put).include(
        "audit",
        Audit.entry(actor, {
          action: "messagingSettings.updated",
          resourceType: "MessagingSettings",
          resourceId: "messaging",
          before,
          after,
        }),
      ),
    );
  } catch (error) {
    if (error instanceof TransactionConditionFailed)
      throw new ConflictError("The messaging settings changed while this change was made: read them again and retry.");
    throw error;
  } finally {
    storedSettingsItem.forget(actor.organizationId);
  }
  return after;
}
