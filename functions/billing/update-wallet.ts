import { audited } from "#core/http/audited";
import * as Billing from "#core/billing/index";
import { endpoint } from "#core/http/endpoint";
import { updateWallet } from "#core/http/operations/billing";

export const handler = endpoint(
  updateWallet,
  audited(
    {
      action: "wallet.settingsUpdated",
      resourceType: "Wallet",
      before: ({ actor }) => Billing.wallet(actor.organizationId),
      idOf: () => "wallet",
    },
    ({ actor, body }) => Billing.updateSettings(actor, body),
  ),
);
