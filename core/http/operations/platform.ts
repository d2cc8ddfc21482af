import { defineOperation } from "#core/http/operation";

export const getOpenApi = defineOperation({
  operationId: "getOpenApi",
  method: "GET",
  path: "/openapi.json",
  summary: "This API's OpenAPI 3.1 contract",
  tag: "Platform",
  auth: "public",
  success: { status: 200, description: "The OpenAPI document", jsonSchema: { type: "object" } },
  problems: [429],
});

export const getAgentCard = defineOperation({
  operationId: "getAgentCard",
  method: "GET",
  path: "/.well-known/agent-card.json",
  summary: "The public A2A agent card",
  tag: "Agent",
  auth: "public",
  success: { status: 200, description: "The agent card (A2A protocol)", jsonSchema: { type: "object" } },
  problems: [429],
});
