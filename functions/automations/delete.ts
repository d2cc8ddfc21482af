import * as Automations from "#core/automations/automations";
import { endpoint } from "#core/http/endpoint";
import { deleteAutomation } from "#core/http/operations/automations";

export const handler = endpoint(deleteAutomation, ({ actor, params }) => Automations.remove(actor, params.id));
