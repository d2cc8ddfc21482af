import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { routeMatcher } from "#local/apigateway";
import type { HttpMethod } from "#stacks/definitions";

/**
 * The contract guard: every response the HTTP tests receive through `request()`
 * is checked against docs/openapi.json with a JSON Schema 2020-12 validator
 * (OpenAPI 3.1's dialect): the status is declared for the operation, the content
 * type is declared for that status, and the body is valid against its schema.
 * A test whose response breaks the contract fails with the reason.
 */
type JsonObject = Record<string, any>;

const document = JSON.parse(readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8")) as JsonObject;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
ajv.addSchema(document, "openapi");

const methods = ["get", "put", "post", "delete", "patch"] as const;
const match = routeMatcher(
  Object.entries(document.paths as JsonObject).flatMap(([path, item]) =>
    methods
      .filter((method) => item[method])
      .map((method) => ({ method: method.toUpperCase() as HttpMethod, path, handler: "contract" })),
  ),
);

/**
 * Statuses the gateway (not the operation) answers on any route, always as a
 * problem: a body over 10 MB (413), a query over 60 KB (414), oversized headers
 * (431), a function that failed or timed out (500, 503).
 */
const gatewayStatuses = new Set([413, 414, 431, 500, 503]);

/**
 * Not the API: the key set local user tokens are signed with (local stack only) and the dashboard's static
 * files under /app (a separate static site when deployed).
 */
const isOutsideTheApi = (path: string) =>
  path === "/.well-known/jwks.json" || path === "/app" || path.startsWith("/app/");

const validators = new Map<string, ValidateFunction>();
function validatorFor(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) validators.set(pointer, (validate = ajv.compile({ $ref: `openapi#${pointer}` })));
  return validate;
}
const escape = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

/** The contract violations of one response (empty when it conforms). */
export function contractViolations(
  method: string,
  path: string,
  status: number,
  contentType: string,
  body: unknown,
): string[] {
  if (isOutsideTheApi(path)) return [];
  const mediaType = contentType.split(";", 1)[0]!.trim().toLowerCase();
  const matched = match(method.toUpperCase(), path);
  const where = `${method} ${path} → ${status}`;
  if (!matched) {
    // Unknown routes and methods are answered by the `$default` route, outside the contract: always a problem.
    if (mediaType !== "application/problem+json")
      return [`${where}: an unmatched route must answer application/problem+json, not ${mediaType || "nothing"}`];
    return bodyViolations(where, "/components/schemas/Problem", body);
  }
  const template = matched.route.path;
  const operationPointer = `/paths/${escape(template)}/${method.toLowerCase()}`;
  const responses = document.paths[template][method.toLowerCase()].responses as JsonObject;
  const response = responses[String(status)] as JsonObject | undefined;
  if (!response) {
    if (gatewayStatuses.has(status) && mediaType === "application/problem+json")
      return bodyViolations(where, "/components/schemas/Problem", body);
    return [`${where}: status ${status} is not declared (declared: ${Object.keys(responses).join(", ")})`];
  }
  const content = response.content as JsonObject | undefined;
  if (!content) return mediaType && body !== "" ? [`${where}: declares no body, received ${mediaType}`] : [];
  if (!content[mediaType])
    return [
      `${where}: content type ${mediaType || "(none)"} is not declared (declared: ${Object.keys(content).join(", ")})`,
    ];
  if (!content[mediaType].schema) return [];
  return bodyViolations(where, `${operationPointer}/responses/${status}/content/${escape(mediaType)}/schema`, body);
}

function bodyViolations(where: string, pointer: string, body: unknown): string[] {
  const validate = validatorFor(pointer);
  if (validate(body)) return [];
  return (validate.errors ?? [])
    .slice(0, 10)
    .map(
      (error) =>
        `${where}: body${error.instancePath || ""} ${error.message ?? "is invalid"} ${JSON.stringify(error.params)}`,
    );
}
