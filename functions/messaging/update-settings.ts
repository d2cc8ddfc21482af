import { endpoint } from "#core/http/endpoint";
import { updateMessagingSettings } from "#core/http/operations/messages";
import { MessagingSettingsStore } from "#core/messaging/settings";

/** The change records its own audit entry, in its transaction (core/messaging/settings.ts). */
export const handler = endpoint(updateMessagingSettings, ({ actor, body }) =>
  MessagingSettingsStore.replace(actor, body),
);
