import { routedBy } from "#core/http/operation";
import { platformRoutes } from "#stacks/definitions";

const defineOperation = routedBy(platformRoutes);

export const getOpenApi = /* @__PURE__ */ defineOperation({
  operationId: "getOpenApi",
  summary: "This API's OpenAPI 3.1 contract",
  tag: "Platform",
  auth: "public",
  success: { status: 200, description: "The OpenAPI document", jsonSchema: { type: "object" } },
  problems: [429],
});

/** The card's two routes, one document (functions/agent/card.ts). */
const agentCardOperation = <TOperationId extends "getAgentCard" | "getAgentCardBesideRpc">(
  operationId: TOperationId,
  summary: string,
  where: string,
) =>
  defineOperation({
    operationId,
    summary,
    description:
      `${where}The A2A 1.0 card by default; a request with \`A2A-Version: 0.3\` gets the same card in the 0.3 shape (OpenAPI-style \`securitySchemes\` and \`security\`). ` +
      "Both shapes list the 1.0 and 0.3 JSON-RPC interfaces at `/a2a`.",
    tag: "Agent",
    auth: "public",
    success: { status: 200, description: "The agent card (A2A protocol)", jsonSchema: { type: "object" } },
    problems: [429],
  });

export const getAgentCard = agentCardOperation("getAgentCard", "The public A2A agent card", "");

/** Clients and conformance suites given the JSON-RPC URL look for the card beside it (`<url>/.well-known/agent-card.json`). */
export const getAgentCardBesideRpc = agentCardOperation(
  "getAgentCardBesideRpc",
  "The public A2A agent card, beside the JSON-RPC endpoint",
  "The same card as `/.well-known/agent-card.json`, for clients that only know the `/a2a` URL. ",
);

export const getApiReference = /* @__PURE__ */ defineOperation({
  operationId: "getApiReference",
  summary: "API reference page (Redoc) rendered from this contract",
  description:
    "An HTML page that renders `/openapi.json` with Redoc. Every asset is served by this API (`/docs/redoc.standalone.js`): " +
    "viewing it fetches nothing from another origin. Holds no personal data, so shared caches may keep it for a few minutes.",
  tag: "Platform",
  auth: "public",
  success: { status: 200, description: "The HTML page", contentType: "text/html" },
  problems: [429],
});

export const getApiReferenceScript = /* @__PURE__ */ defineOperation({
  operationId: "getApiReferenceScript",
  summary: "The Redoc script of the API reference page",
  description:
    "Redoc's standalone bundle, as published on npm. The page asks for it with `?v=<hash of the bundle>`, so it is cached for a year.",
  tag: "Platform",
  auth: "public",
  success: { status: 200, description: "The JavaScript bundle", contentType: "text/javascript" },
  problems: [429],
});
