import { MessageSend } from "#core/messaging/queue";
import { LeadReceived } from "#core/leads/queue";
import { CallPlace } from "#core/calls/queue";
import { AutomationStep } from "#core/automations/runs/queue";
import type { SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { systemActor } from "#core/auth/actor";
import * as AutomationRuns from "#core/automations/runs/index";
import * as Calls from "#core/calls/index";
import { RunStore } from "#core/automations/runs/store";
import * as Leads from "#core/leads/index";
import { leadItem, type Lead } from "#core/leads/index";
import * as LeadProcessing from "#core/leads/processing";
import { SWEEP_ATTEMPTS as LEAD_SWEEP_ATTEMPTS, sweepAfterMs } from "#core/leads/processing";
import { changeMessage } from "#core/messaging/store";
import { SWEEP_ATTEMPTS as MESSAGE_SWEEP_ATTEMPTS, sweepDueMessages } from "#core/messaging/sweeper";
import { envelope } from "#core/queue/messages";
import { newId } from "#core/shared/ids";
import { handler as intakeConsumer } from "#functions/consumers/lead-intake";
import { handler as outboundConsumer } from "#functions/consumers/outbound-messages";
import { handler as outboundCallsConsumer } from "#functions/consumers/outbound-calls";
import { queues } from "#stacks/definitions";
import { waitForRun } from "#tests/helpers/automations";
import { failPublishes, faultWhen } from "#tests/helpers/crash";
import { storeUnqueuedLead, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { addNumber, events, queuedOutsideTheStack, randomNumber } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** One SQS delivery of `body` as Lambda's event source hands it over, on its `receiveCount`-th receive. */
function delivery(body: unknown, receiveCount: number): SQSEvent {
  return {
    Records: [
      {
        messageId: newId(),
        receiptHandle: "local",
        body: JSON.stringify(body),
        attributes: { ApproximateReceiveCount: String(receiveCount) } as never,
        messageAttributes: {},
        md5OfBody: "",
        eventSource: "aws:sqs",
        eventSourceARN: "",
        awsRegion: "us-east-1",
      },
    ],
  };
}

/** Delivers the same message on every receive SQS allows, as a queue does with a message whose handling keeps failing. */
async function deliverUntilDeadLetter(
  consumer: (event: SQSEvent) => Promise<{ batchItemFailures: unknown[] }>,
  body: unknown,
  maxReceiveCount: number,
  afterEach: () => Promise<void>,
) {
  for (let receive = 1; receive <= maxReceiveCount; receive++) {
    expect((await consumer(delivery(body, receive))).batchItemFailures).toHaveLength(1);
    await afterEach();
  }
}

/** A lead stored exactly as intake stores it (Pending), without its queue message. */
async function pendingLead(
  org: TestOrganization,
  createdAt = new Date().toISOString(),
  corrupt: Record<string, unknown> = {},
): Promise<Lead> {
  const template = (
    await Leads.intake(
      systemActor(org.organizationId),
      { contact: { email: `poison-${newId()}@example.com` } },
      { channel: "Api" },
    )
  ).lead;
  await waitForLead(org, template.id);
  const lead: Lead = {
    ...template,
    id: newId(),
    createdAt,
    processingStatus: "Pending",
    contact: { ...template.contact, email: null, phone: { number: uniquePhone(), type: null, countryCode: "US" } },
  };
  // Only this process handles it: the intake outbox does not queue it for the stack's consumer.
  await storeUnqueuedLead({ ...leadItem(org.organizationId, lead), ...corrupt });
  return lead;
}

/** An outbound message only this process handles, Queued, in an organization with a number. */
async function queuedMessage(org: TestOrganization): Promise<string> {
  await addNumber(org);
  return (await queuedOutsideTheStack(org, randomNumber(), "poison")).id;
}

describe("poison messages end their item Failed (ProcessingError) with an event, for every consumer", () => {
  applyStackEnv();

  it("an outbound message whose send keeps failing stays Queued until the last receive, then ends Failed with its hold released", async () => {
    const org = await newOrganization();
    const messageId = await queuedMessage(org);
    const stopFault = faultWhen(messageId, '"Sending"'); // the claim write fails every time (in this process only: nothing publishes this message)
    try {
      const message = envelope(MessageSend, org.organizationId, { messageId });
      let receive = 0;
      await deliverUntilDeadLetter(outboundConsumer, message, queues.outboundMessages.maxReceiveCount, async () => {
        receive++;
        const current = (await org.request("GET", `/messages/${messageId}`)).body;
        expect(current.status).toBe(receive < queues.outboundMessages.maxReceiveCount ? "Queued" : "Failed");
      });
    } finally {
      stopFault();
    }
    const failed = (await org.request("GET", `/messages/${messageId}`)).body;
    expect(failed).toMatchObject({ status: "Failed", errorCode: "ProcessingError", billingStatus: "Released" });
    expect(failed.statusReason).toMatch(/^ProcessingError: /);
    expect((await org.request("GET", "/billing/wallet")).body.reservedAmount).toBe("0.0000");
    expect(await events(org, { eventType: "MessageFailed" })).toMatchObject([{ relatedEntityId: messageId }]);
    // The Dispatch sweep finds nothing to republish: the message is final.
    expect(await sweepDueMessages({ organizationId: org.organizationId })).toMatchObject({ dispatched: 0 });
  });

  it("a lead whose processing keeps failing ends Failed (ProcessingError) with its LeadProcessingFailed event on the last receive", async () => {
    const org = await newOrganization();
    const lead = await pendingLead(org);
    const stopFault = faultWhen(lead.id, '"Processed"');
    try {
      await deliverUntilDeadLetter(
        intakeConsumer,
        envelope(LeadReceived, org.organizationId, { leadId: lead.id }),
        queues.leadIntake.maxReceiveCount,
        async () => undefined,
      );
    } finally {
      stopFault();
    }
    expect(await waitForLead(org, lead.id)).toMatchObject({
      processingStatus: "Failed",
      processingReason: "ProcessingError",
    });
    expect(await events(org, { eventType: "LeadProcessingFailed" })).toMatchObject([
      { leadId: lead.id, statusReason: "ProcessingError" },
    ]);
  });
});

describe("the call placement's poison hook", () => {
  applyStackEnv();

  it("a call whose placement keeps failing before it starts ends Failed (ProcessingError) on the last receive, its hold released", async () => {
    const org = await newOrganization();
    await addNumber(org);
    // The call is stored and holds its cost, but its queue message never leaves this process (as after a crash).
    const stopPublish = await failPublishes();
    const callId = newId();
    try {
      await expect(
        Calls.place(systemActor(org.organizationId), { to: randomNumber(), record: false, metadata: {} }, { callId }),
      ).rejects.toThrow();
    } finally {
      stopPublish();
    }
    expect((await org.request("GET", `/calls/${callId}`)).body).toMatchObject({
      status: "Queued",
      billingStatus: "Reserved",
    });
    const stopFault = faultWhen(callId, "placementStartedAt"); // the placement claim fails every time
    try {
      await deliverUntilDeadLetter(
        outboundCallsConsumer,
        envelope(CallPlace, org.organizationId, { callId }),
        queues.outboundCalls.maxReceiveCount,
        async () => undefined,
      );
    } finally {
      stopFault();
    }
    const failed = (await org.request("GET", `/calls/${callId}`)).body;
    expect(failed).toMatchObject({ status: "Failed", billingStatus: "Released" });
    expect(failed.statusReason).toMatch(/^ProcessingError: /);
    expect((await org.request("GET", "/billing/wallet")).body.reservedAmount).toBe("0.0000");
  });
});

describe("the automation step's poison hook", () => {
  applyStackEnv();

  it("ends the run Failed (ProcessingError) at the step the poison message named, with its AutomationRunFailed event; a stale copy changes nothing", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const lead = (
      await org.request("POST", "/leads", { body: { contact: { firstName: "Run", phone: { number: uniquePhone() } } } })
    ).body;
    const automation = (
      await org.request("POST", "/automations", {
        body: {
          name: "Waits an hour",
          triggers: [{ id: "t", type: "Manual" }],
          actions: [
            { id: "wait", type: "Wait", settings: { durationSeconds: 3600 } },
            { id: "late", type: "SendSms", settings: { body: "Later" } },
          ],
          connections: [
            { id: "c1", sourceNodeId: "t", targetNodeId: "wait" },
            { id: "c2", sourceNodeId: "wait", targetNodeId: "late" },
          ],
        },
      })
    ).body;
    const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: lead.id } });
    expect(started.status).toBe(202);
    const waiting = await waitForRun(org, automation.id, started.body.id, (run) => run.status === "Waiting");
    const stored = (await RunStore.read(org.organizationId, automation.id, waiting.id))!;
    const step = {
      automationId: automation.id,
      runId: waiting.id,
      seq: stored.cursorSeq,
      attempt: stored.cursorAttempt,
    };
    const hook = AutomationRuns.handlers["automation.step"];

    await hook.onPoison(
      envelope(AutomationStep, org.organizationId, { ...step, attempt: step.attempt + 1 }),
      new Error("stale"),
    );
    expect((await org.request("GET", `/automations/${automation.id}/runs/${waiting.id}`)).body.status).toBe("Waiting");
    await hook.onPoison(envelope(AutomationStep, org.organizationId, step), new Error("the step keeps failing"));
    const failed = (await org.request("GET", `/automations/${automation.id}/runs/${waiting.id}`)).body;
    expect(failed.status).toBe("Failed");
    expect(failed.error).toMatch(/^ProcessingError: /);
    expect(failed.steps.at(-1)).toMatchObject({ nodeId: "wait", status: "Failed" });
    expect(await events(org, { eventType: "AutomationRunFailed" })).toHaveLength(1);
  });
});

describe("sweeps never republish an item past its attempt limit", () => {
  applyStackEnv();

  it("the Dispatch sweep republishes an overdue message at most SWEEP_ATTEMPTS times, then ends it Failed (ProcessingError)", async () => {
    const org = await newOrganization();
    const messageId = await queuedMessage(org);
    // A stored message no process can send (its segment count is unreadable: the cost cannot be computed), overdue now.
    await changeMessage(org.organizationId, messageId, {
      from: ["Queued"],
      set: { segments: "many" },
      due: { at: new Date(Date.now() - 60_000).toISOString(), kind: "Dispatch" },
    });
    let dispatched = 0;
    let failed = 0;
    for (let sweep = 1; sweep <= MESSAGE_SWEEP_ATTEMPTS + 2; sweep++) {
      // Each sweep runs after the previous republish came due again (the clock moves ten minutes a sweep).
      const result = await sweepDueMessages({
        organizationId: org.organizationId,
        now: new Date(Date.now() + sweep * 600_000),
      });
      dispatched += result.dispatched;
      failed += result.failed;
    }
    expect(dispatched).toBe(MESSAGE_SWEEP_ATTEMPTS);
    expect(failed).toBe(1);
    const message = (
      await org.request("GET", `/messages/${messageId}`, { contractCheck: "skip: the test planted a corrupt item" })
    ).body;
    expect(message).toMatchObject({ status: "Failed", errorCode: "ProcessingError" });
    expect(message.statusReason).toMatch(/after 3 republishes/);
  });

  it("the intake sweep republishes a stuck lead at most SWEEP_ATTEMPTS times, then ends it Failed (ProcessingError)", async () => {
    const org = await newOrganization();
    // A stored lead no process can handle (its customer block is unreadable), pending for longer than the sweep waits.
    const lead = await pendingLead(org, new Date(Date.now() - sweepAfterMs - 60_000).toISOString(), { customer: 42 });
    let republished = 0;
    for (let sweep = 1; sweep <= LEAD_SWEEP_ATTEMPTS + 2; sweep++) {
      // Each sweep runs after the previous republish waited its turn again (the clock moves).
      republished += await LeadProcessing.sweep(Date.now() + sweep * (sweepAfterMs + 60_000), org.organizationId);
    }
    expect(republished).toBe(LEAD_SWEEP_ATTEMPTS);
    const failed = await waitForLead(org, lead.id, undefined, undefined, {
      contractCheck: "skip: the test planted a corrupt item",
    });
    expect(failed).toMatchObject({ processingStatus: "Failed", processingReason: "ProcessingError" });
  });
});
