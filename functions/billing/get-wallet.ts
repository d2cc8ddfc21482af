import * as Billing from "#core/billing/index";
import { endpoint } from "#core/http/endpoint";
import { getWallet } from "#core/http/operations/billing";

export const handler = endpoint(getWallet, ({ actor }) => Billing.wallet(actor.organizationId));
