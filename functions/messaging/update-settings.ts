import { endpoint } from "#core/http/endpoint";
import { updateMessagingSettings } from "#core/http/operations/messages";
import { replaceMessagingSettings } from "#core/messaging/settings-replace";

/** The change records its own audit entry, in its transaction (core/messaging/settings-replace.ts). */
export const handler = endpoint(updateMessagingSettings, ({ actor, body }) => replaceMessagingSettings(actor, body));
