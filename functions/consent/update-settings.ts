import * as ConsentSettingsStore from "#core/consent/settings";
import { endpoint } from "#core/http/endpoint";
import { updateConsentSettings } from "#core/http/operations/consent";

export const handler = endpoint(updateConsentSettings, ({ actor, body }) => ConsentSettingsStore.update(actor, body));
