import { AutomationScheduled } from "#core/automations/runs/queue";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import * as AutomationRuns from "#core/automations/runs/index";
import { db, tableName } from "#core/db/client";
import * as Leads from "#core/leads/index";
import { leadItem } from "#core/leads/index";
import { envelope } from "#core/queue/messages";
import { chain, createAutomation, listRuns, readyToText, smsStep, waitForRuns } from "#tests/helpers/automations";
import { newSource, waitForLead } from "#tests/helpers/leads";
import { events, randomNumber, sleep, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

const DAY_MS = 86_400_000;

async function postLead(org: TestOrganization, sourceId: string, firstName: string, product?: string) {
  const phone = randomNumber("212");
  const response = await org.request("POST", "/leads", {
    body: { sourceId, contact: { firstName, phone: { number: phone } }, ...(product ? { metadata: { product } } : {}) },
  });
  expect(response.status).toBeLessThan(300);
  return { id: response.body.id as string, phone, lead: await waitForLead(org, response.body.id) };
}

/** A copy of `templateLeadId` stored as created `daysAgo` days ago, with its own id and phone. */
async function backdatedLead(org: TestOrganization, templateLeadId: string, daysAgo: number): Promise<string> {
  const template = (await Leads.find(org.organizationId, templateLeadId))!;
  const createdMs = Date.now() - daysAgo * DAY_MS;
  const createdAt = new Date(createdMs).toISOString();
  const lead = {
    ...template,
    id: ulid(createdMs),
    createdAt,
    metadata: { ...template.metadata, createdAt },
    contact: {
      ...template.contact,
      firstName: "Old",
      phone: { ...template.contact.phone!, number: randomNumber("212") },
    },
  };
  await db().send(new PutCommand({ TableName: tableName(), Item: leadItem(org.organizationId, lead) }));
  return lead.id;
}

const delivered = async (org: TestOrganization, leadId: string) =>
  (await events(org, { leadId, eventType: "MessageDelivered" })).length;

describe("Schedule trigger with an audience", () => {
  it("one firing starts one run per matching lead, each texts its own lead, and a redelivered firing starts no more", async () => {
    const org = await newOrganization("Sunny Solar");
    const number = await readyToText(org);
    const [source, otherSource] = [await newSource(org), await newSource(org)];
    const ann = await postLead(org, source.sourceId, "Ann", "Solar panels");
    const bob = await postLead(org, source.sourceId, "Bob");
    const replied = await postLead(org, source.sourceId, "Cara");
    const optedOut = await postLead(org, source.sourceId, "Dan");
    const suppressed = await postLead(org, source.sourceId, "Eve");
    const elsewhere = await postLead(org, otherSource.sourceId, "Fay");
    const old = await backdatedLead(org, bob.id, 5);
    await textFrom(replied.phone, number.phoneNumber, "yes please");
    await textFrom(optedOut.phone, number.phoneNumber, "STOP");
    await waitForLead(org, optedOut.id, (lead) => lead.metadata.smsOptedOut === true);
    expect(
      (await org.request("POST", "/suppressions", { body: { phoneNumber: suppressed.phone } })).status,
    ).toBeLessThan(300);

    const automation = await createAutomation(org, {
      name: "Nudge recent leads",
      triggers: [
        {
          id: "t",
          type: "Schedule",
          settings: { intervalMinutes: 1, audience: { createdWithinDays: 3, sourceId: source.sourceId } },
        },
      ],
      conditionGroups: [
        {
          id: "no-reply",
          mode: "all",
          conditions: [
            { id: "quiet", type: "HasReplied", operator: "Equals", settings: { value: false, since: "LeadCreated" } },
          ],
        },
      ],
      actions: [
        {
          id: "nudge",
          type: "SendSms",
          settings: { body: "Hi {{contact.firstName}}, still interested in {{metadata.product|our plans}}?" },
        },
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "no-reply" },
        { id: "c2", sourceNodeId: "no-reply", targetNodeId: "nudge" },
      ],
    });
    const later = new Date(Date.now() + 2 * 60_000);
    await AutomationRuns.sweep({ now: later, organizationId: org.organizationId });
    await AutomationRuns.sweep({ now: later, organizationId: org.organizationId });

    const runs = await waitForRuns(org, automation.id, 3);
    expect(runs.map((run) => run.leadId).sort()).toEqual([ann.id, bob.id, replied.id].sort());
    const firedAt = runs[0].trigger.data.firedAt as string;
    for (const run of runs)
      expect(run.trigger).toMatchObject({
        type: "Schedule",
        eventType: "automation.scheduled",
        eventId: `schedule:t:${firedAt}:${run.leadId}`,
        data: { firedAt },
      });
    expect(runs.find((run) => run.leadId === replied.id)).toMatchObject({ status: "Skipped", path: ["t"] });

    const texts = new Map<string, any>();
    for (const run of runs.filter((candidate) => candidate.leadId !== replied.id)) {
      expect(run.status).toBe("Succeeded");
      texts.set(
        run.leadId,
        await waitForMessage(org, smsStep(run).output.messageId, (message) => message.status === "Delivered"),
      );
    }
    expect(texts.get(ann.id)).toMatchObject({
      leadId: ann.id,
      toPhoneNumber: ann.phone,
      body: "Hi Ann, still interested in Solar panels?",
    });
    expect(texts.get(bob.id)).toMatchObject({
      leadId: bob.id,
      toPhoneNumber: bob.phone,
      body: "Hi Bob, still interested in our plans?",
    });

    // The same slot again: the sweep's message redelivered, and each lead's copy redelivered.
    const firing = { automationId: automation.id, triggerId: "t", firedAt };
    await AutomationRuns.handlers["automation.scheduled"](envelope(AutomationScheduled, org.organizationId, firing));
    for (const leadId of [ann.id, bob.id, replied.id]) {
      await AutomationRuns.handlers["automation.scheduled"](
        envelope(AutomationScheduled, org.organizationId, { ...firing, leadId }),
      );
    }
    await sleep(2000);
    const after = await listRuns(org, automation.id);
    expect(after.map((run) => run.id).sort()).toEqual(runs.map((run) => run.id).sort());
    expect(await delivered(org, ann.id)).toBe(1);
    expect(await delivered(org, bob.id)).toBe(1);
    for (const leadId of [replied.id, suppressed.id, elsewhere.id, old]) expect(await delivered(org, leadId)).toBe(0);
  });

  it("audience filters narrow by vertical and product, and maxLeads keeps the newest", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const leadBody = (vertical: string, product: string) => ({
      sourceId: source.sourceId,
      contact: { firstName: "Lee", phone: { number: randomNumber("212") } },
      metadata: { vertical, product },
    });
    const ids: string[] = [];
    for (const [vertical, product] of [
      ["solar", "panels"],
      ["solar", "panels"],
      ["solar", "batteries"],
      ["roofing", "panels"],
      ["solar", "panels"],
    ] as const) {
      const response = await org.request("POST", "/leads", { body: leadBody(vertical, product) });
      ids.push(response.body.id);
      await waitForLead(org, response.body.id);
    }
    const automation = await createAutomation(
      org,
      chain(
        {
          type: "Schedule",
          settings: { cron: "0 9 * * MON-FRI", audience: { vertical: "solar", product: "panels", maxLeads: 2 } },
        },
        [{ id: "stop", type: "Stop" }],
      ),
    );
    await AutomationRuns.handlers["automation.scheduled"](
      envelope(AutomationScheduled, org.organizationId, {
        automationId: automation.id,
        triggerId: "t",
        firedAt: new Date().toISOString(),
      }),
    );
    const runs = await waitForRuns(org, automation.id, 2);
    expect(runs.map((run) => run.leadId).sort()).toEqual([ids[4], ids[1]].sort());
  });

  it("bad audience settings are a 400 that points into the trigger's settings", async () => {
    const org = await newOrganization();
    const response = await org.request("POST", "/automations", {
      body: chain(
        {
          type: "Schedule",
          settings: {
            cron: "0 9 * * *",
            audience: { createdWithinDays: 0, maxLeads: 5000, processingStatus: ["Done"], city: "Austin" },
          },
        },
        [{ id: "stop", type: "Stop" }],
      ),
    });
    expect(response.status).toBe(400);
    const pointers = response.body.errors.map((error: { pointer: string }) => error.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        "/triggers/0/settings/audience/createdWithinDays",
        "/triggers/0/settings/audience/maxLeads",
        "/triggers/0/settings/audience/processingStatus/0",
        "/triggers/0/settings/audience/city",
      ]),
    );
  });
});
