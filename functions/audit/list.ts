import { endpoint } from "#core/http/endpoint";
import { listAuditLog } from "#core/http/operations/audit";
import * as Audit from "#core/audit/index";

export const handler = endpoint(listAuditLog, ({ actor, body }) => Audit.list(actor, body));
