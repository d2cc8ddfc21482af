import { defineOperation } from "#core/http/operation";

export const getOpenApi = defineOperation({
  operationId: "getOpenApi",
  summary: "This API's OpenAPI 3.1 contract",
  tag: "Platform",
  auth: "public",
  success: { status: 200, description: "The OpenAPI document", jsonSchema: { type: "object" } },
  problems: [429],
});

export const getAgentCard = defineOperation({
  operationId: "getAgentCard",
  summary: "The public A2A agent card",
  tag: "Agent",
  auth: "public",
  success: { status: 200, description: "The agent card (A2A protocol)", jsonSchema: { type: "object" } },
  problems: [429],
});

export const getApiReference = defineOperation({
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

export const getApiReferenceScript = defineOperation({
  operationId: "getApiReferenceScript",
  summary: "The Redoc script of the API reference page",
  description: "Redoc's standalone bundle, as published on npm. The page asks for it with `?v=<hash of the bundle>`, so it is cached for a year.",
  tag: "Platform",
  auth: "public",
  success: { status: 200, description: "The JavaScript bundle", contentType: "text/javascript" },
  problems: [429],
});
