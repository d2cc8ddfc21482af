import { describe, expect, it } from "vitest";
import { CALL_CHECK_IN_MS } from "#core/calls/lifecycle";
import { sweepDueCalls } from "#core/calls/sweeper";
import { handler as placeCall } from "#functions/calls/place";
import { waitForCall } from "#tests/helpers/calls";
import { failPublishes, killedAfterWrite } from "#tests/helpers/crash";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { addNumber, magic } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

/** Work a crash cut short is picked up within minutes of the restart, not at a 46-minute deadline. */
describe("recovery on real time", () => {
  applyStackEnv();

  it("a call stored and held but never queued for placement (the process died) is placed at its first check-in", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const event = apiEvent({
      method: "POST",
      path: "/calls",
      body: { to: magic("20") },
      headers: { authorization: `Bearer ${org.ownerToken}` },
    });
    // Killed right after the call, its hold and its event were written: the placement message was never sent. The
    // kill stops this process's DynamoDB access; its queue sends are stopped too, or the placement, sent right after
    // the write, would reach the stack's consumer and the call be placed before the sweep (a race, lost under load).
    const restorePublishes = await failPublishes();
    try {
      await killedAfterWrite(/"entity":(\{"S":)?"Call"/, () => placeCall(event, lambdaContext()));
    } finally {
      restorePublishes();
    }
    // The request died before answering: the call log is where its caller finds it (not a scan of the whole table,
    // which grows with every test file before this one and took the test past its time-out late in a full run).
    const listed = await org.request("POST", "/calls/all/my", { body: { pageSize: 10 } });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((call: { status: string }) => call.status)).toEqual(["Queued"]);
    const callId = String(listed.body.items[0].id);

    // The sweep runs every minute; the call's first check-in is CALL_CHECK_IN_MS after it was placed.
    const sweep = await sweepDueCalls({
      now: new Date(Date.now() + CALL_CHECK_IN_MS + 1_000),
      organizationId: org.organizationId,
    });
    expect(sweep).toMatchObject({ checked: 1, expired: 0, errors: 0 });
    expect(await waitForCall(org, callId)).toMatchObject({ status: "Completed", billingStatus: "Charged" });
  });
});
