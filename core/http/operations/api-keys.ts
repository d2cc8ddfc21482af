import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { apiKeyRoutes } from "#stacks/definitions";
import { pageSchema } from "#core/shared/paging";
import {
  ApiKeySchema,
  CreateApiKeySchema,
  CreatedApiKeySchema,
  ListApiKeysSchema,
  RotateApiKeySchema,
} from "#core/organizations/api-keys";

const defineOperation = routedBy(apiKeyRoutes);

const keyId = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const createApiKey = /* @__PURE__ */ defineOperation({
  operationId: "createApiKey",
  summary: "Create an `sk_` API key (the secret is answered this once)",
  description:
    "Scopes are permissions (docs/permissions.md), at most the creator's own (403 otherwise). Only the key's hash is stored.",
  tag: "API keys",
  auth: "bearer",
  permission: "apiKeys:write",
  body: CreateApiKeySchema,
  success: { status: 201, description: "The key with its secret", schema: CreatedApiKeySchema },
  problems: [400, 401, 403, 413, 415, 429],
  example: { name: "CRM sync", scopes: ["leads:read", "leads:write"] },
});

export const listApiKeys = /* @__PURE__ */ defineOperation({
  operationId: "listApiKeys",
  summary: "List the organization's API keys (paging query in the body); never their secrets",
  tag: "API keys",
  auth: "bearer",
  permission: "apiKeys:read",
  body: ListApiKeysSchema,
  success: { status: 200, description: "A page of keys", schema: /* @__PURE__ */ pageSchema(ApiKeySchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});

export const rotateApiKey = /* @__PURE__ */ defineOperation({
  operationId: "rotateApiKey",
  summary: "Rotate an API key: a new secret now, the old one keeps working for `overlapHours` (default 24)",
  tag: "API keys",
  auth: "bearer",
  permission: "apiKeys:write",
  params: keyId,
  body: RotateApiKeySchema,
  bodyRequired: false,
  success: { status: 201, description: "The new key with its secret", schema: CreatedApiKeySchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 429],
  example: { overlapHours: 24 },
});

export const revokeApiKey = /* @__PURE__ */ defineOperation({
  operationId: "revokeApiKey",
  summary: "Revoke an API key: refused (401) within seconds",
  tag: "API keys",
  auth: "bearer",
  permission: "apiKeys:write",
  params: keyId,
  success: { status: 204, description: "Revoked; no content" },
  problems: [401, 403, 404, 409, 429],
});
