import { describe, expect, it } from "vitest";
import { chain, createAutomation, readyToText, smsStep, waitForRuns } from "#tests/helpers/automations";
import { createLead, randomNumber, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

const hello = { id: "hello", type: "SendSms", settings: { body: "Hi {{contact.firstName|there}}, this is {{organization.name}}. Product: {{metadata.product}}", fallback: "our plans" } };

describe("automation runs: LeadCreated end to end", () => {
  it("a posted lead starts a run that sends the templated SMS, which is delivered, and the run ends Succeeded", async () => {
    const org = await newOrganization("Acme Roofing");
    await readyToText(org);
    const automation = await createAutomation(org, chain({ type: "LeadCreated" }, [hello]));
    const lead = await createLead(org, randomNumber("212"));
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({ status: "Succeeded", automationVersion: 1, leadId: lead.id, path: ["t", "hello"], error: null });
    expect(run.trigger).toMatchObject({ type: "LeadCreated", eventType: "lead.created" });
    const step = smsStep(run);
    expect(step).toMatchObject({ status: "Succeeded", attempts: 1, error: null });
    expect(step.input.body).toBe("Hi Dana, this is Acme Roofing. Product: our plans");
    for (const field of ["startedAt", "finishedAt"]) expect(step[field]).toMatch(/Z$/);
    const message = await waitForMessage(org, step.output.messageId, (m) => m.status === "Delivered");
    expect(message).toMatchObject({ leadId: lead.id, body: "Hi Dana, this is Acme Roofing. Product: our plans", direction: "Outbound" });
    const stored = await org.request("GET", `/automations/${automation.id}`);
    expect(stored.body).toMatchObject({ lastRunStatus: "Succeeded", lastRunAt: run.createdAt });
  });
});
