import { audited } from "#core/http/audited";
import { Automations } from "#core/automations/index";
import { endpoint } from "#core/http/endpoint";
import { updateAutomation } from "#core/http/operations/automations";

export const handler = endpoint(
  updateAutomation,
  audited(
    {
      action: "automation.updated",
      resourceType: "Automation",
      before: ({ actor, params }) => Automations.fromId(actor, params.id),
    },
    ({ actor, params, body }) => Automations.update(actor, params.id, body),
  ),
);
