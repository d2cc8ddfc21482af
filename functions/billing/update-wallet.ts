import { Billing } from "#core/billing/index";
import { endpoint } from "#core/http/endpoint";
import { updateWallet } from "#core/http/operations/billing";

export const handler = endpoint(updateWallet, ({ actor, body }) => Billing.updateSettings(actor, body));
