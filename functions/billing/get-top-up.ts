import { Payments } from "#core/billing/payments";
import { endpoint } from "#core/http/endpoint";
import { getTopUp } from "#core/http/operations/billing";

export const handler = endpoint(getTopUp, ({ actor, params }) => Payments.topUp(actor, params.topUpId));
