import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { endpoint } from "#core/http/endpoint";
import { defineUnroutedOperation } from "#core/http/operation";
import { httpLimits } from "#stacks/definitions";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { applyStackEnv } from "#tests/helpers/stack";

applyStackEnv();

const slowProbe = defineUnroutedOperation({
  operationId: "slowProbe",
  method: "GET",
  path: "/slow-probe",
  summary: "test operation",
  tag: "Test",
  auth: "public",
  success: { status: 200, description: "the probe", schema: v.object({ id: v.string() }) },
  problems: [429],
});

/**
 * A deployed handler that is still working when its function's timeout comes would be killed by Lambda, and API
 * Gateway would answer a bare `{"message":"Internal Server Error"}` 500 (issue 23, finding 3). It stops
 * `httpLimits.earlyTimeoutMs` before and answers a problem+json 503 instead.
 */
describe("an endpoint running out of time", () => {
  it("answers 503 problem+json before its function's timeout instead of being killed", async () => {
    const neverDone = endpoint(slowProbe, () => new Promise<never>(() => undefined));
    const context = { ...lambdaContext(), getRemainingTimeInMillis: () => httpLimits.earlyTimeoutMs + 200 };
    const result = await neverDone(apiEvent({ method: "GET", path: "/slow-probe" }), context);
    expect(result.statusCode).toBe(503);
    expect(result.headers?.["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(result.body!)).toMatchObject({
      status: 503,
      title: "Service Unavailable",
      instance: "/slow-probe",
      detail: expect.stringMatching(/ran out of time/),
    });
  });

  it("leaves a fast answer alone", async () => {
    const quick = endpoint(slowProbe, async () => ({ id: "p1" }));
    const context = { ...lambdaContext(), getRemainingTimeInMillis: () => httpLimits.earlyTimeoutMs + 200 };
    const result = await quick(apiEvent({ method: "GET", path: "/slow-probe" }), context);
    expect(result.statusCode).toBe(200);
  });
});
