import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { defineUnroutedOperation } from "#core/http/operation";
import { MethodNotAllowedError, RouteNotFoundError } from "#core/http/problem";
import { routes } from "#stacks/definitions";

/** API Gateway's `$default` route: not part of the contract, answers what no route matched. */
export const fallbackOperation = defineUnroutedOperation({
  operationId: "fallback",
  method: "GET",
  path: "$default",
  summary: "Unknown route or method",
  tag: "Platform",
  auth: "public",
  success: { status: 200, description: "never answered" },
  problems: [404, 405, 429],
});

const templates = routes.map((route) => ({
  method: route.method,
  pattern: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/]+?\}/g, "[^/]+")}$`),
}));

/** 405 with `Allow` when the path exists under other methods, else 404. */
export function rejectUnmatched(event: APIGatewayProxyEventV2): never {
  const path = event.rawPath;
  const allow = [...new Set(templates.filter((t) => t.pattern.test(path)).map((t) => t.method))];
  if (allow.length > 0) throw new MethodNotAllowedError(event.requestContext.http.method, allow);
  throw new RouteNotFoundError(`No resource at ${path}.`);
}
