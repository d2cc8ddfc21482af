import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { endpoint } from "#core/http/endpoint";
import { defineUnroutedOperation } from "#core/http/operation";
import { HttpResponse } from "#core/http/response";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { applyStackEnv } from "#tests/helpers/stack";

applyStackEnv();

const probe = defineUnroutedOperation({
  operationId: "answerProbe",
  method: "GET",
  path: "/answer-probe",
  summary: "test operation",
  tag: "Test",
  auth: "public",
  success: { status: 200, description: "the probe", schema: v.object({ id: v.string(), count: v.number() }) },
  problems: [429],
});

const removeProbe = defineUnroutedOperation({
  operationId: "removeProbe",
  method: "DELETE",
  path: "/answer-probe",
  summary: "test operation",
  tag: "Test",
  auth: "public",
  success: { status: 204, description: "removed" },
  problems: [429],
});

/**
 * Never called: `npm run typecheck` checks that each of these handlers is refused by the compiler (an unused
 * `@ts-expect-error` is itself an error), so a handler cannot answer something other than its contract.
 */
export function wronglyShapedHandlers() {
  return [
    // @ts-expect-error the success schema's fields are missing (a field of another name instead)
    endpoint(probe, async () => ({ identifier: "p1", count: 2 })),
    // @ts-expect-error a field of the wrong type
    endpoint(probe, async () => ({ id: "p1", count: "2" })),
    // @ts-expect-error a bare value where the schema describes an object
    endpoint(probe, async () => "p1"),
    // @ts-expect-error a body from an operation that answers 204 No Content
    endpoint(removeProbe, async () => ({ id: "p1" })),
  ];
}

const call = (handler: ReturnType<typeof endpoint>, method = "GET") =>
  handler(apiEvent({ method, path: "/answer-probe" }), lambdaContext());

describe("what an endpoint implementation answers", () => {
  it("sends the success schema's output as JSON with the operation's status", async () => {
    const result = await call(endpoint(probe, async () => ({ id: "p1", count: 2 })));
    expect(result.statusCode).toBe(200);
    expect(result.headers?.["content-type"]).toBe("application/json");
    expect(JSON.parse(result.body!)).toEqual({ id: "p1", count: 2 });
  });

  it("sends nothing for a 204 operation", async () => {
    const result = await call(
      endpoint(removeProbe, async () => undefined),
      "DELETE",
    );
    expect(result.statusCode).toBe(204);
    expect(result.body).toBe("");
  });

  it("sends an explicit response as it is", async () => {
    const result = await call(endpoint(probe, async () => HttpResponse.text(200, "id,count\np1,2\n", "text/csv")));
    expect(result.statusCode).toBe(200);
    expect(result.headers?.["content-type"]).toBe("text/csv");
    expect(result.body).toBe("id,count\np1,2\n");
  });
});
