import { routedBy } from "#core/http/operation";
import { auditRoutes } from "#stacks/definitions";
import { pageSchema } from "#core/shared/paging";
import { AuditEntrySchema, ListAuditLogSchema } from "#core/audit/index";

const defineOperation = routedBy(auditRoutes);

export const listAuditLog = /* @__PURE__ */ defineOperation({
  operationId: "listAuditLog",
  summary: "The organization's audit log, newest first (paging query in the body)",
  description:
    "Who (user or key) changed what (before and after of the changed fields, credentials redacted), when and from where (IP, user agent). Entries are kept 400 days.",
  tag: "Audit log",
  auth: "bearer",
  permission: "audit:read",
  body: ListAuditLogSchema,
  success: { status: 200, description: "A page of entries", schema: pageSchema(AuditEntrySchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});
