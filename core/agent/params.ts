import * as v from "valibot";
import { timestamp } from "#core/shared/ids";
import { toFieldErrors } from "#core/shared/validation";

/**
 * What `/a2a` checks in a call's params before the SDK handler parses them: the
 * protocol's MUSTs the SDK leaves open (a message needs a role and at least one
 * part; ListTasks and GetTask bound their numbers, timestamps are ISO 8601). The
 * SDK's protobuf-JSON parsing would otherwise turn a missing role into
 * ROLE_UNSPECIFIED and `"-1"` into a date. Unknown fields pass through untouched.
 */
const historyLength = v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0, "Must be 0 or more."))));

const message = (roles: [string, ...string[]]) =>
  v.looseObject({
    message: v.looseObject(
      {
        role: v.picklist(roles, `Must be ${roles.join(" or ")}.`),
        parts: v.pipe(
          v.array(v.unknown(), "Must be an array of parts."),
          v.minLength(1, "A message needs at least one part."),
        ),
      },
      "Must be a message object.",
    ),
  });

const getTask = v.looseObject({ historyLength });

const listTasks = v.looseObject({
  pageSize: v.optional(
    v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1, "Must be 1-100."), v.maxValue(100, "Must be 1-100."))),
  ),
  historyLength,
  statusTimestampAfter: v.optional(v.nullable(timestamp)),
  pageToken: v.optional(v.nullable(v.string())),
});

const schemas: Record<string, v.GenericSchema> = {
  SendMessage: message(["ROLE_USER", "ROLE_AGENT"]),
  SendStreamingMessage: message(["ROLE_USER", "ROLE_AGENT"]),
  "message/send": message(["user", "agent"]),
  "message/stream": message(["user", "agent"]),
  GetTask: getTask,
  "tasks/get": getTask,
  ListTasks: listTasks,
};

/**
 * The JSON-RPC `status` the official JS SDK client sends when `listTasks()` is called without one: its protobuf-JSON
 * writer turns the unset enum into `"UNRECOGNIZED"` (-1). It means "no status filter", not an invalid one.
 */
const unsetStatus = new Set<unknown>(["UNRECOGNIZED", -1]);

export type ParamsCheck = { ok: true; params: Record<string, unknown> } | { ok: false; message: string };

/** Checks (and for ListTasks normalizes) the params of `method`; the message names each offending field. */
export function checkParams(method: string, params: Record<string, unknown>): ParamsCheck {
  const normalized = method === "ListTasks" && unsetStatus.has(params.status) ? withoutStatus(params) : params;
  const schema = schemas[method];
  if (!schema) return { ok: true, params: normalized };
  const parsed = v.safeParse(schema, normalized);
  if (parsed.success) return { ok: true, params: normalized };
  const fields = toFieldErrors(parsed.issues).map((error) => `${error.pointer || "/"}: ${error.detail}`);
  return { ok: false, message: `Invalid params: ${fields.join(" ")}` };
}

function withoutStatus({ status: _unset, ...rest }: Record<string, unknown>): Record<string, unknown> {
  return rest;
}
