import * as Payments from "#core/billing/payments";
import { endpoint } from "#core/http/endpoint";
import { requireIdempotencyKey } from "#core/http/headers";
import { topUpWallet } from "#core/http/operations/billing";

export const handler = endpoint(topUpWallet, async ({ actor, body, headers, resourceId }) => {
  requireIdempotencyKey(headers);
  return Payments.startTopUp(actor, body, { topUpId: await resourceId() });
});
