import { endpoint } from "#core/http/endpoint";
import { getMessagingSettings } from "#core/http/operations/messages";
import * as MessagingSettingsStore from "#core/messaging/settings";

export const handler = endpoint(getMessagingSettings, ({ actor }) => MessagingSettingsStore.read(actor.organizationId));
