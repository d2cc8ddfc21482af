import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { routingRoutes } from "#stacks/definitions";
import {
  RoutingAvailabilitySchema,
  RoutingAwaySchema,
  RoutingSettingsRequestSchema,
  RoutingSettingsSchema,
} from "#core/routing/index";

const defineOperation = routedBy(routingRoutes);

const tag = "Routing";

export const getRoutingSettings = /* @__PURE__ */ defineOperation({
  operationId: "getRoutingSettings",
  summary: "The organization's lead routing rules and who sees which leads",
  tag,
  auth: "bearer",
  permission: "users:read",
  success: { status: 200, description: "The routing settings", schema: RoutingSettingsSchema },
  problems: [401, 403, 429],
});

export const updateRoutingSettings = /* @__PURE__ */ defineOperation({
  operationId: "updateRoutingSettings",
  summary: "Replace the routing rules (first match wins) and the lead visibility settings",
  description:
    "Each processed lead goes to the first rule whose conditions it matches, and within that rule's pool to the next user who may take it now " +
    "(active, not away, within their working hours, licensed for the lead's state, under their caps), by the rule's strategy. " +
    'Without a matching rule, or with nobody in the pool who may take it, the lead stays unassigned with `needsAttention: true` (`fallback: "unassigned"`, the default) or goes to an owner (`fallback: "owner"`). Keep a rule\'s `id` to keep its round-robin position. ' +
    "Send the `version` you read: a stale one is answered 409, so one admin's save never silently undoes another's; each save adds one. See docs/routing.md.",
  tag,
  auth: "bearer",
  permission: "users:write",
  body: RoutingSettingsRequestSchema,
  success: { status: 200, description: "The routing settings", schema: RoutingSettingsSchema },
  problems: [400, 401, 403, 409, 413, 415, 429],
  example: {
    agentsSeeAllLeads: false,
    agentsMayClaim: true,
    rules: [
      {
        name: "Florida insurance",
        conditions: { states: ["FL"], verticals: ["Insurance"] },
        pool: ["01JAGENT1", "01JAGENT2"],
        strategy: "roundRobin",
      },
      {
        name: "Big-ticket paid search",
        conditions: { price: { min: "40.00" }, utmSources: ["google"], utmMediums: ["cpc"] },
        pool: ["01JAGENT3"],
      },
    ],
    fallback: "owner",
  },
});

const UserIdParams = v.object({ userId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const getRoutingAway = /* @__PURE__ */ defineOperation({
  operationId: "getRoutingAway",
  summary: "Whether a user is away (routing, calls and alerts skip them)",
  description:
    "Any user of the organization reads anyone's (a colleague's lead may go to someone else while they are away). A user never marked answers `away: false` with `modifiedAt` null.",
  tag,
  auth: "bearer",
  permission: "users:read",
  params: UserIdParams,
  success: { status: 200, description: "The user's availability", schema: RoutingAvailabilitySchema },
  problems: [401, 403, 404, 429],
});

export const setRoutingAway = /* @__PURE__ */ defineOperation({
  operationId: "setRoutingAway",
  summary: "Mark a user away (routing skips them) or back",
  description:
    "An agent marks only themselves; owners, admins and API keys mark anyone of the organization. Routing sees the change within seconds on every instance. See docs/routing.md.",
  tag,
  auth: "bearer",
  permission: "leads:write",
  params: UserIdParams,
  body: RoutingAwaySchema,
  success: { status: 200, description: "The user's availability", schema: RoutingAvailabilitySchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { away: true },
});
