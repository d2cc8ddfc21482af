import { Billing } from "#core/billing/index";
import { endpoint } from "#core/http/endpoint";
import { listLedger } from "#core/http/operations/billing";

export const handler = endpoint(listLedger, ({ actor, body }) => Billing.ledger(actor, body));
