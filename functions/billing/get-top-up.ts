import { readTopUp } from "#core/billing/payment-records";
import { endpoint } from "#core/http/endpoint";
import { getTopUp } from "#core/http/operations/billing";

export const handler = endpoint(getTopUp, ({ actor, params }) => readTopUp(actor.organizationId, params.topUpId));
