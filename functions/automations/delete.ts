import { audited } from "#core/http/audited";
import { Automations } from "#core/automations/index";
import { endpoint } from "#core/http/endpoint";
import { deleteAutomation } from "#core/http/operations/automations";

export const handler = endpoint(
  deleteAutomation,
  audited(
    {
      action: "automation.deleted",
      resourceType: "Automation",
      before: ({ actor, params }) => Automations.fromId(actor, params.id),
    },
    ({ actor, params }) => Automations.remove(actor, params.id),
  ),
);
