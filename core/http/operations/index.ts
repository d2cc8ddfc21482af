import type { Operation } from "#core/http/operation";
import type { OperationId } from "#stacks/definitions";
import * as a2a from "#core/http/operations/a2a";
import * as analytics from "#core/http/operations/analytics";
import * as automations from "#core/http/operations/automations";
import * as automationRuns from "#core/http/operations/automation-runs";
import * as consent from "#core/http/operations/consent";
import * as conversations from "#core/http/operations/conversations";
import * as events from "#core/http/operations/events";
import * as billing from "#core/http/operations/billing";
import * as callWebhooks from "#core/http/operations/call-webhooks";
import * as calls from "#core/http/operations/calls";
import * as carrierRegistration from "#core/http/operations/carrier-registration";
import * as leads from "#core/http/operations/leads";
import * as messages from "#core/http/operations/messages";
import * as phoneNumbers from "#core/http/operations/phone-numbers";
import * as platform from "#core/http/operations/platform";
import * as sources from "#core/http/operations/sources";
import * as suppressions from "#core/http/operations/suppressions";
import * as webhooks from "#core/http/operations/webhooks";
import * as webhookEndpoints from "#core/http/operations/webhook-endpoints";
import * as users from "#core/http/operations/users";
import * as organizations from "#core/http/operations/organizations";
import * as apiKeys from "#core/http/operations/api-keys";
import * as audit from "#core/http/operations/audit";
import * as routing from "#core/http/operations/routing";

/**
 * Every operation the API serves, by operationId (each module exports its operations under their operationId). The
 * route table is keyed the same way: a route without its operation, or an operation without its route, does not compile.
 */
const operationsById = {
  ...platform,
  ...a2a,
  ...analytics,
  ...automations,
  ...automationRuns,
  ...consent,
  ...sources,
  ...leads,
  ...billing,
  ...calls,
  ...phoneNumbers,
  ...carrierRegistration,
  ...conversations,
  ...messages,
  ...suppressions,
  ...events,
  ...webhooks,
  ...users,
  ...organizations,
  ...apiKeys,
  ...audit,
  ...routing,
  ...callWebhooks,
  ...webhookEndpoints,
} satisfies Record<OperationId, Operation>;

/** Every operation the API serves; the OpenAPI document and the route-table test read this list. */
export const allOperations: Operation[] = Object.values(operationsById);
