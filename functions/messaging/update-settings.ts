import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { updateMessagingSettings } from "#core/http/operations/messages";
import { MessagingSettingsStore } from "#core/messaging/settings";

export const handler = endpoint(updateMessagingSettings, audited(
    { action: "messagingSettings.updated", resourceType: "MessagingSettings", before: ({ actor }) => MessagingSettingsStore.read(actor.organizationId), idOf: () => "messaging" },
    ({ actor, body }) => MessagingSettingsStore.replace(actor, body),
  ));
