import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { triggerId } from "#core/automations/runs/trigger-outbox";
import { triggerHandlers } from "#core/automations/runs/triggers";
import { inbound, statusCallback } from "#core/calls/carrier-callbacks";
import * as Outbound from "#core/messaging/outbound";
import { simulatorAuthToken } from "#core/providers/simulator/adapter";
import { twilioSignature } from "#core/providers/twilio/signature";
import { envelope } from "#core/queue/messages";
import { MessageFailed } from "#core/messaging/queue";
import "#core/calls/queue";
import { chain, createAutomation, listRuns, waitForRuns } from "#tests/helpers/automations";
import { dieAfterWriting, failPublishes, killedAfterWrite } from "#tests/helpers/crash";
import { addNumber, createLead, magic, queuedOutsideTheStack, randomNumber } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/**
 * Triggers after commit (#24): a message that ends Failed and a missed call start their automations from the event
 * committed with the status (the table stream, `automationTriggerOutbox`), so a process killed right after that commit
 * (before anything it would have published) loses no trigger; a trigger read twice starts one run.
 */
describe("an automation trigger survives a crash right after its status commits", () => {
  applyStackEnv();

  const markLead = {
    id: "mark",
    type: "UpdateLead",
    settings: { fields: { "metadata.vertical": "needs-a-call" } },
  };

  async function runsOnce(org: TestOrganization, automationId: string): Promise<any> {
    const [run] = await waitForRuns(org, automationId, 1, () => true, 60_000);
    return run;
  }

  it("a message refused for good (Failed) starts its MessageFailed automation once, though the sender died after the commit", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const to = magic("07"); // refused permanently by the carrier: the message ends Failed in the sender's process
    const lead = await createLead(org, to);
    const automation = await createAutomation(
      org,
      chain({ type: "MessageFailed", settings: { statuses: ["Failed"] } }, [markLead]),
    );
    const queued = await queuedOutsideTheStack(org, to, "Your quote is ready");
    await dieAfterWriting(["Failed"], () => Outbound.dispatch(org.organizationId, queued));
    expect((await org.request("GET", `/messages/${queued.id}`)).body).toMatchObject({ status: "Failed" });
    const run = await runsOnce(org, automation.id);
    expect(run).toMatchObject({ leadId: lead.id, trigger: { type: "MessageFailed", eventType: "message.failed" } });
    expect(run.trigger.data).toMatchObject({ messageId: queued.id, status: "Failed" });
    // The stream record read again (a retried batch): the same trigger id, no second run.
    await triggerHandlers["message.failed"](
      envelope(
        MessageFailed,
        org.organizationId,
        {
          messageId: queued.id,
          conversationId: queued.conversationId,
          leadId: lead.id,
          status: "Failed",
          errorCode: "21614",
        },
        triggerId("message.failed", queued.id),
      ),
    );
    expect(await listRuns(org, automation.id)).toHaveLength(1);
  });

  it("a missed inbound call starts its CallMissed automation, though the callback's process died after the commit", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const caller = randomNumber("212");
    await createLead(org, caller);
    const automation = await createAutomation(
      org,
      chain({ type: "CallMissed", settings: { phoneNumberIds: [number.id] } }, [markLead]),
    );
    const callSid = `CA${crypto.randomUUID().replaceAll("-", "")}`;
    const callback = (status: string) => {
      const url = "https://api.example.com/webhooks/simulator/calls/status";
      const params: [string, string][] = [
        ["CallSid", callSid],
        ["CallStatus", status],
        ["Direction", "inbound"],
        ["From", caller],
        ["To", number.phoneNumber],
      ];
      const token = simulatorAuthToken(inject("stackEnv").TOKEN_SIGNING_KEY!);
      return {
        url,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "x-twilio-signature": twilioSignature(token, url, params),
        },
        body: new URLSearchParams(params).toString(),
      };
    };
    await inbound("simulator", callback("ringing")); // no forwarding number: nobody takes it
    // The callback's process dies right after the write that ends the call NoAnswer (a missed call): nothing it would
    // write or publish after that commit goes out.
    const stopPublishes = await failPublishes();
    try {
      await killedAfterWrite(/NoAnswer/, () => statusCallback("simulator", callback("no-answer")));
    } finally {
      stopPublishes();
    }
    const run = await runsOnce(org, automation.id);
    expect(run).toMatchObject({ trigger: { type: "CallMissed", eventType: "call.missed" } });
    expect(run.trigger.data).toMatchObject({ from: caller, to: number.phoneNumber, phoneNumberId: number.id });
  });
});
