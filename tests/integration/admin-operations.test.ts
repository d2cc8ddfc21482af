import { SendMessageCommand } from "@aws-sdk/client-sqs";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { stuckWork } from "#core/maintenance/stuck-work";
import { sqs } from "#core/queue/client";
import { deadLetterUrlOf } from "#core/queue/dead-letters";
import { newId } from "#core/shared/ids";
import { queues, schedules } from "#stacks/definitions";
import { lambdaContext, loadFunction } from "#local/handlers";
import { adminCli } from "#tests/helpers/admin";
import { addNumber, magic, send, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

const cli = adminCli();

/** `npm run admin -- <args>` against the test stack: its JSON output (throws with the error when it fails). */
async function admin(...args: string[]): Promise<any> {
  const result = await cli(...args);
  if (result.code !== 0) throw Object.assign(new Error(result.error?.error ?? "admin failed"), result);
  return result.output;
}

beforeAll(() => applyStackEnv());

describe("admin CLI: the operator's view", () => {
  it(
    "status shows every queue's depth and dead letters, stuck work, and the last run of every schedule",
    { timeout: 60_000 },
    async () => {
      const before = new Date().toISOString();
      const sweep = schedules.find((schedule) => schedule.name === "leadIntakeSweep")!;
      await (
        await loadFunction(sweep)
      )({}, lambdaContext("lead-intake-sweep", 30_000));

      const status = await admin("status");
      expect(Object.keys(status.queues)).toEqual(Object.keys(queues));
      for (const depth of Object.values(status.queues)) {
        expect(depth).toEqual({
          visible: expect.any(Number),
          inFlight: expect.any(Number),
          delayed: expect.any(Number),
          deadLetters: expect.any(Number),
        });
      }
      expect(status.stuckWork).toEqual({
        leadsPending: { count: expect.any(Number), oldestAgeSeconds: expect.toBeOneOf([null, expect.any(Number)]) },
        messagesPastDeadline: {
          count: expect.any(Number),
          oldestAgeSeconds: expect.toBeOneOf([null, expect.any(Number)]),
          byKind: expect.any(Object),
        },
        callsHoldingMoneyPastDeadline: {
          count: expect.any(Number),
          oldestAgeSeconds: expect.toBeOneOf([null, expect.any(Number)]),
        },
      });
      expect(Object.keys(status.schedules)).toEqual(schedules.map((schedule) => schedule.name));
      const lastRun = status.schedules.leadIntakeSweep.lastRun;
      expect(lastRun).toMatchObject({
        schedule: "leadIntakeSweep",
        outcome: "Succeeded",
        result: { republished: expect.any(Number) },
      });
      expect(lastRun.startedAt >= before).toBe(true);
    },
  );

  it(
    "counts a message whose final receipt never came as stuck once its deadline passes, with its age",
    // Its read of the due index covers every organization's waiting messages: late in a full run, many.
    { timeout: 90_000 },
    async () => {
      const org = await newOrganization();
      await addNumber(org);
      const accepted = await send(org, { to: magic("08"), body: "no receipt ever" });
      await waitForMessage(org, accepted.body.id, (message) => message.status === "Sent");
      // The receipt timeout is 72 h: an hour past it, the message is stuck work.
      const later = await stuckWork(new Date(Date.now() + 73 * 3_600_000));
      expect(later.messagesPastDeadline.byKind.ReceiptTimeout).toBeGreaterThanOrEqual(1);
      expect(later.messagesPastDeadline.oldestAgeSeconds).toBeGreaterThan(0);
    },
  );

  it(
    "dlq show summarises a message forced into a dead-letter queue, and dlq redrive moves it back",
    { timeout: 60_000 },
    async () => {
      const envelope = {
        id: newId(),
        type: "call.place",
        organizationId: `org-dlq-${newId()}`,
        occurredAt: new Date().toISOString(),
        data: { callId: newId() },
      };
      const deadLetterUrl = await deadLetterUrlOf(inject("stackEnv")[queues.outboundCalls.urlEnv]!);
      await (
        await sqs()
      ).send(new SendMessageCommand({ QueueUrl: deadLetterUrl, MessageBody: JSON.stringify(envelope) }));

      const shown = await admin("dlq", "show", "outboundCalls");
      expect(shown.queue).toBe("outboundCalls");
      expect(shown.deadLetters).toBeGreaterThanOrEqual(1);
      expect(shown.byType["call.place"]).toBeGreaterThanOrEqual(1);
      const mine = shown.samples.find((sample: any) => sample.organizationId === envelope.organizationId);
      expect(mine).toMatchObject({ type: "call.place", body: JSON.stringify(envelope) });
      expect(shown.oldestSentAt).toMatch(/^\d{4}-/);

      const redriven = await admin("dlq", "redrive", "outboundCalls");
      expect(redriven.moved).toBeGreaterThanOrEqual(1);
      const after = await admin("dlq", "show", "outboundCalls");
      expect(after.samples.some((sample: any) => sample.organizationId === envelope.organizationId)).toBe(false);
    },
  );

  it("refuses an unknown queue with the list of queues", async () => {
    const refused = await cli("dlq", "show", "nope");
    expect(refused.code).toBe(1);
    expect(refused.error.error).toContain("QUEUE must be one of leadIntake");
  });
});
