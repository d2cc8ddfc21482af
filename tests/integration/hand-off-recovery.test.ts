import { describe, expect, it } from "vitest";
import { systemActor } from "#core/auth/actor";
import * as Calls from "#core/calls/index";
import { sweepDueCalls } from "#core/calls/sweeper";
import * as Outbound from "#core/messaging/outbound";
import { sweepDueMessages } from "#core/messaging/sweeper";
import { newId } from "#core/shared/ids";
import { dispatch as placeCall } from "#core/calls/placement";
import { waitForCall } from "#tests/helpers/calls";
import { failPublishes, faultWhen, killedAfterWrite } from "#tests/helpers/crash";
import { addNumber, magic, queuedOutsideTheStack } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

const MINUTE = 60_000;

/**
 * Recovery on real time (#24, finding 2): a hand-off cut short by a crash is settled minutes later by asking the
 * carrier by our id, not at the 72 h receipt timeout or the call's deadline. The carrier here is the simulator of
 * this process, the one the cut-short hand-off spoke to.
 */
describe("a hand-off cut short by a crash is recovered within minutes", () => {
  applyStackEnv();

  it("a message the carrier took, whose answer was never stored: its provider id is recorded from the carrier after the lease", async () => {
    const org = await newOrganization();
    await addNumber(org);
    // No receipt ever comes (scenario 08): only the lookup by our id can tell what the carrier holds.
    const queued = await queuedOutsideTheStack(org, magic("08"), "answer lost");
    const stop = faultWhen(queued.id, ':"providerMessageId"'); // the process dies as it records the carrier's answer (the write naming the attribute)
    try {
      await expect(Outbound.dispatch(org.organizationId, queued)).rejects.toThrow();
    } finally {
      stop();
    }
    expect((await org.request("GET", `/messages/${queued.id}`)).body).toMatchObject({
      status: "Sending",
      providerMessageId: null,
    });
    const sweep = (minutes: number) =>
      sweepDueMessages({ now: new Date(Date.now() + minutes * MINUTE), organizationId: org.organizationId });
    expect(await sweep(1)).toMatchObject({ resent: 0, rechecked: 0 }); // within the lease: the consumer may still be at it
    expect(await sweep(3)).toMatchObject({ resent: 0, rechecked: 1 });
    const found = (await org.request("GET", `/messages/${queued.id}`)).body;
    // Still waiting for its receipt (the carrier's Sent may have come meanwhile), never sent a second time.
    expect(found).toMatchObject({
      status: expect.stringMatching(/^(Sending|Sent)$/),
      retryCount: 0,
      billingStatus: "Reserved",
    });
    expect(found.providerMessageId).toMatch(/^SM/);
  });

  it("a call whose placement died during its provider request is placed again at its next check-in, not at its deadline", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const callId = newId();
    // Stored with its hold, but its queue message stays in this process: only the placement below (then the sweep) runs it.
    const stopPublish = await failPublishes();
    try {
      await expect(
        Calls.place(systemActor(org.organizationId), { to: magic("28"), record: false, metadata: {} }, { callId }),
      ).rejects.toThrow();
    } finally {
      stopPublish();
    }
    // The consumer claims the placement and dies right there (scenario 28: the carrier never calls back).
    await killedAfterWrite(/placementStartedAt/, () => placeCall(org.organizationId, callId));
    expect((await org.request("GET", `/calls/${callId}`)).body).toMatchObject({ status: "Queued", providerId: null });
    expect(
      await sweepDueCalls({ now: new Date(Date.now() + 3 * MINUTE), organizationId: org.organizationId }),
    ).toMatchObject({ checked: 1, errors: 0 });
    const placed = await waitForCall(org, callId, (call) => call.providerId !== null, 60_000);
    expect(placed).toMatchObject({ status: "Queued", billingStatus: "Reserved" });
  });
});
