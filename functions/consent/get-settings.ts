import * as ConsentSettingsStore from "#core/consent/settings";
import { endpoint } from "#core/http/endpoint";
import { getConsentSettings } from "#core/http/operations/consent";

export const handler = endpoint(getConsentSettings, ({ actor }) => ConsentSettingsStore.read(actor));
