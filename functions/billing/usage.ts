import * as BillingHistory from "#core/billing/history";
import { endpoint } from "#core/http/endpoint";
import { getUsage } from "#core/http/operations/billing";

export const handler = endpoint(getUsage, ({ actor, query }) => BillingHistory.usage(actor, query));
