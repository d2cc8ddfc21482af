import * as v from "valibot";
import { RotateApiKeySchema } from "#core/organizations/api-keys";
import { routedBy } from "#core/http/operation";
import { sourceRoutes } from "#stacks/definitions";
import { ListSourcesSchema, SourceRequestSchema, SourceSchema, SourceWithKeySchema } from "#core/sources/index";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(sourceRoutes);

const SourceIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

const sourceExample = {
  name: "Acme Leads",
  enabled: true,
  defaultPrice: "12.50",
  vertical: "Insurance",
  product: "Auto",
  duplicateWindowHours: 24,
};

export const createSource = /* @__PURE__ */ defineOperation({
  operationId: "createSource",
  summary: "Create a lead source and its intake key",
  description: "The answer carries `apiKey` once; only its hash is stored. Give the seller `sourceId` and `apiKey`.",
  tag: "Sources",
  auth: "bearer",
  permission: "sources:write",
  body: SourceRequestSchema,
  success: { status: 201, description: "The source and its key (shown only now)", schema: SourceWithKeySchema },
  problems: [400, 401, 403, 413, 415, 429],
  example: sourceExample,
});

export const getSource = /* @__PURE__ */ defineOperation({
  operationId: "getSource",
  summary: "Read one lead source of the current organization",
  tag: "Sources",
  auth: "bearer",
  permission: "sources:read",
  params: SourceIdParams,
  success: { status: 200, description: "The source (never its key)", schema: SourceSchema },
  problems: [401, 403, 404, 429],
});

export const listSources = /* @__PURE__ */ defineOperation({
  operationId: "listSources",
  summary: "List the current organization's lead sources (paging query in the body)",
  tag: "Sources",
  auth: "bearer",
  permission: "sources:read",
  body: ListSourcesSchema,
  success: { status: 200, description: "A page of sources", schema: /* @__PURE__ */ pageSchema(SourceSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: { pageSize: 20, filters: [{ field: "enabled", value: true }] },
});

export const updateSource = /* @__PURE__ */ defineOperation({
  operationId: "updateSource",
  summary:
    "Replace a lead source's settings (name, enabled, default price, vertical/product, allowed IPs, duplicate window)",
  description:
    "A disabled source's key is refused with 401 at once. The key itself is unchanged; rotate it with POST /sources/{id}/keys.",
  tag: "Sources",
  auth: "bearer",
  permission: "sources:write",
  params: SourceIdParams,
  body: SourceRequestSchema,
  success: { status: 200, description: "The updated source", schema: SourceSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  // Not a spread, which the bundler keeps as an effect (with the schemas beside it) where the operation is unused.
  example: /* @__PURE__ */ Object.assign({}, sourceExample, { enabled: false }),
});

export const rotateSourceKey = /* @__PURE__ */ defineOperation({
  operationId: "rotateSourceKey",
  summary:
    "Issue a new key for a source; the previous key keeps working for `overlapHours` (default 24, 0 stops it at once)",
  description:
    "Intake instances that verified the old key recently refuse it within seconds of the overlap's end. The change is in the audit log.",
  tag: "Sources",
  auth: "bearer",
  permission: "sources:write",
  params: SourceIdParams,
  body: RotateApiKeySchema,
  bodyRequired: false,
  success: { status: 201, description: "The new key (shown only now)", schema: SourceWithKeySchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 429],
  example: { overlapHours: 24 },
});

export const revokeSourceKey = /* @__PURE__ */ defineOperation({
  operationId: "revokeSourceKey",
  summary: "Revoke a source's keys: intake refuses them (401) within seconds, until a rotation issues a new key",
  tag: "Sources",
  auth: "bearer",
  permission: "sources:write",
  params: SourceIdParams,
  success: { status: 200, description: "The source, its key revoked", schema: SourceSchema },
  problems: [401, 403, 404, 409, 429],
});
