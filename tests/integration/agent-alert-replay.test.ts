import { describe, expect, it } from "vitest";
import * as AgentAlerts from "#core/alerts/index";
import { newSource } from "#tests/helpers/leads";
import { addNumber, events, randomNumber } from "#tests/helpers/messaging";
import { agents, assign, processedLead, setAlerts, textsTo } from "#tests/helpers/routing";
import { newOrganization } from "#tests/helpers/stack";

/** A stream record read again (a retried batch) does not text the agent twice: the SMS's id comes from the event's. */
describe("an agent alert read twice", () => {
  it("sends one SMS", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const agentPhone = randomNumber("646");
    const [agent] = await agents(org, 1, [agentPhone]);
    await setAlerts(org, agent!, { newLead: ["sms"], inboundReply: [] });
    const lead = await processedLead(org, await newSource(org), { FirstName: "Once" });
    await assign(org, lead.id, agent!.id);
    const [first] = await textsTo(org, agentPhone, 1);
    expect(first.body).toContain("New lead for you: Once");

    const assigned = (await events(org)).find(
      (event) => event.eventType === "LeadAssigned" && event.leadId === lead.id,
    );
    expect(await AgentAlerts.fromEvent(org.organizationId, assigned)).toEqual(["sms"]);
    expect(await AgentAlerts.fromEvent(org.organizationId, assigned)).toEqual(["sms"]);
    expect((await textsTo(org, agentPhone, 2, 2_000)).map((text) => text.id)).toEqual([first.id]);
  });
});
