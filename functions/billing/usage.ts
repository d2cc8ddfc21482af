import { Billing } from "#core/billing/index";
import { endpoint } from "#core/http/endpoint";
import { getUsage } from "#core/http/operations/billing";

export const handler = endpoint(getUsage, ({ actor, query }) => Billing.usage(actor, query));
