import { endpoint } from "#core/http/endpoint";
import { updateMessagingSettings } from "#core/http/operations/messages";
import { MessagingSettingsStore } from "#core/messaging/settings";

export const handler = endpoint(updateMessagingSettings, ({ actor, body }) => MessagingSettingsStore.replace(actor, body));
