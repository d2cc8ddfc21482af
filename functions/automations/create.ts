import { audited } from "#core/http/audited";
import { Automations } from "#core/automations/index";
import { endpoint } from "#core/http/endpoint";
import { createAutomation } from "#core/http/operations/automations";

export const handler = endpoint(
  createAutomation,
  audited({ action: "automation.created", resourceType: "Automation" }, ({ actor, body }) =>
    Automations.create(actor, body),
  ),
);
