import * as BillingHistory from "#core/billing/history";
import { endpoint } from "#core/http/endpoint";
import { listLedger } from "#core/http/operations/billing";

export const handler = endpoint(listLedger, ({ actor, body }) => BillingHistory.ledger(actor, body));
