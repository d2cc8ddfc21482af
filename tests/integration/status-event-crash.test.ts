import { describe, expect, it } from "vitest";
import { callEventTypes } from "#core/calls/lifecycle";
import { sweepDueCalls } from "#core/calls/sweeper";
import { callLifecycle, type CallStatus } from "#core/shared/status";
import * as Outbound from "#core/messaging/outbound";
import { waitForCall } from "#tests/helpers/calls";
import { dieAfterWriting, killedAfterWrite, writingStatus } from "#tests/helpers/crash";
import { addNumber, events, magic, queuedOutsideTheStack } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

/** A status and its event are one write: a process killed right after the status write has written its event too. */
describe("a message's or call's status and its event survive a crash together", () => {
  applyStackEnv();

  it("a message refused by the provider: killed right after Failed is written, its MessageFailed event is stored", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const queued = await queuedOutsideTheStack(org, magic("07"), "invalid");
    await dieAfterWriting(["Failed"], () => Outbound.dispatch(org.organizationId, queued));
    expect((await org.request("GET", `/messages/${queued.id}`)).body.status).toBe("Failed");
    const recorded = (await events(org, { eventType: "MessageFailed" })).filter(
      (event) => event.relatedEntityId === queued.id,
    );
    expect(recorded).toEqual([expect.objectContaining({ status: "Failed", billingStatus: "Released" })]);
  });

  it("a message claimed for the carrier: killed right after Sending is written, its MessageSending event is stored", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const queued = await queuedOutsideTheStack(org, magic("00"));
    await dieAfterWriting(["Sending"], () => Outbound.dispatch(org.organizationId, queued));
    const recorded = (await events(org, { eventType: "MessageSending" })).filter(
      (event) => event.relatedEntityId === queued.id,
    );
    expect(recorded).toEqual([expect.objectContaining({ status: "Sending" })]);
  });

  it("a message the carrier refused for now: killed right after it is queued again, its MessageRetryScheduled event is stored", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const queued = await queuedOutsideTheStack(org, magic("03"));
    // Nothing of our storage follows the requeue (its publish is SQS), so the work may end as if it lived: it died there all the same.
    await killedAfterWrite(writingStatus(["Queued"]), () => Outbound.dispatch(org.organizationId, queued));
    expect((await org.request("GET", `/messages/${queued.id}`)).body).toMatchObject({
      status: "Queued",
      retryCount: 1,
    });
    const recorded = (await events(org, { eventType: "MessageRetryScheduled" })).filter(
      (event) => event.relatedEntityId === queued.id,
    );
    expect(recorded).toEqual([expect.objectContaining({ status: "Queued", retryCount: 1 })]);
  });

  it("a call that never ends: killed right after the sweep writes its final status, that status's event is stored", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const placed = await org.request("POST", "/calls", { body: { to: magic("28") } });
    expect(placed.status).toBe(202);
    // Handed to the carrier (its provider id stored), then silence: no callback ever comes.
    await waitForCall(org, placed.body.id, (call) => call.providerId !== null);
    await killedAfterWrite(
      /^(?=.*"entity":(\{"S":)?"Call")(?=.*"status":(\{"S":)?"(Completed|Busy|NoAnswer|Failed|Canceled)")/,
      () => sweepDueCalls({ now: new Date(Date.now() + 6 * 3_600_000), organizationId: org.organizationId }),
    );
    const ended = (await org.request("GET", `/calls/${placed.body.id}`)).body;
    expect(callLifecycle.isFinal(ended.status)).toBe(true);
    const recorded = (await events(org, { eventType: callEventTypes[ended.status as CallStatus] })).filter(
      (event) => event.relatedEntityId === ended.id,
    );
    expect(recorded).toHaveLength(1);
  });
});
