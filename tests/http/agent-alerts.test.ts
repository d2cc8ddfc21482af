import { describe, expect, it } from "vitest";
import { mailbox } from "#tests/helpers/identity";
import { newSource } from "#tests/helpers/leads";
import { addNumber, randomNumber, sleep, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { agents, assign, processedLead, routedLead, routingSettings, setAlerts, textsTo } from "#tests/helpers/routing";
import { newOrganization } from "#tests/helpers/stack";
import { mailTo } from "#tests/helpers/team";

/**
 * Agent alerts (core/alerts, issue 28): the assignee of a new lead and of a conversation whose contact writes in is
 * told at once, by SMS from the organization's number to their profile phone and/or by e-mail, as their profile's
 * `alerts` asks; nothing while they are away.
 */

const mailsTo = async (to: string) => (await mailbox()).filter((mail) => mail.to === to);

describe("agent alerts", () => {
  it("a lead assigned to an agent tells them by SMS from the organization's number and by e-mail, as their profile asks", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    const agentPhone = randomNumber("646");
    const [agent] = await agents(org, 1, [agentPhone]);
    const profile = await setAlerts(org, agent!, { newLead: ["sms", "email"], inboundReply: [] });
    expect(profile.alerts).toEqual({ newLead: ["sms", "email"], inboundReply: [] });
    expect((await org.request("GET", "/users/me", { token: agent!.token })).body.alerts).toEqual(profile.alerts);

    const lead = await processedLead(org, await newSource(org), { FirstName: "Grace", LastName: "Hopper" });
    await assign(org, lead.id, agent!.id);

    const mail = await mailTo(agent!.email);
    expect(mail.subject).toBe("New lead: Grace Hopper");
    expect(mail.text).toContain(`/app/#/leads/${lead.id}`);
    expect(mail.text).toContain(lead.contact.phone.number);

    const [alert] = await textsTo(org, agentPhone, 1);
    const text = await waitForMessage(org, alert.id, (message) => message.status === "Delivered");
    expect(text).toMatchObject({
      direction: "Outbound",
      toPhoneNumber: agentPhone,
      fromPhoneNumberId: ours.id,
      purpose: "AgentAlert",
      leadId: null,
    });
    expect(text.body).toContain("New lead for you: Grace Hopper");
  });

  it("a reply from the contact of an assigned conversation tells its agent; the defaults are e-mail for both", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    const [agent] = await agents(org, 1);
    const leadPhone = randomNumber("312");
    const lead = await processedLead(org, await newSource(org), { FirstName: "Alan", Phone: leadPhone });
    await assign(org, lead.id, agent!.id);
    expect((await mailTo(agent!.email)).subject).toBe("New lead: Alan");

    await textFrom(leadPhone, ours.phoneNumber, "Is the quote still good?");
    const deadline = Date.now() + 20_000;
    let replied;
    while (!replied && Date.now() < deadline) {
      replied = (await mailsTo(agent!.email)).find((mail) => mail.subject === "Alan replied");
      if (!replied) await sleep(200);
    }
    expect(replied?.text).toContain('Alan replied: "Is the quote still good?"');
    expect(replied?.text).toMatch(/\/app\/#\/conversations\/\S+/);
  });

  it("an away agent is not told; back, they are told of the next lead", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const agentPhone = randomNumber("646");
    const [agent, colleague] = await agents(org, 2, [agentPhone]);
    await setAlerts(org, agent!, { newLead: ["sms", "email"], inboundReply: ["email"] });
    const source = await newSource(org);

    const away = await org.request("PUT", `/routing/agents/${agent!.id}/away`, { body: { away: true } });
    expect(away.status).toBe(200);
    const whileAway = await processedLead(org, source, { FirstName: "Quiet" });
    await assign(org, whileAway.id, agent!.id);
    // The stream is read in order: once the colleague's later alert is out, the away agent's record was read too.
    const later = await processedLead(org, source, { FirstName: "Later" });
    await assign(org, later.id, colleague!.id);
    expect((await mailTo(colleague!.email)).subject).toBe("New lead: Later");
    expect(await mailsTo(agent!.email)).toEqual([]);

    expect((await org.request("PUT", `/routing/agents/${agent!.id}/away`, { body: { away: false } })).status).toBe(200);
    const back = await processedLead(org, source, { FirstName: "Loud" });
    await assign(org, back.id, agent!.id);
    expect((await mailTo(agent!.email)).subject).toBe("New lead: Loud");
    expect((await mailsTo(agent!.email)).map((mail) => mail.subject)).toEqual(["New lead: Loud"]);
    expect((await textsTo(org, agentPhone, 1)).map((text) => text.body)).toEqual([
      expect.stringContaining("New lead for you: Loud"),
    ]);
  });

  it("an agent who claims a lead themselves is not told of it, and refuses an unknown channel with a 400", async () => {
    const org = await newOrganization();
    const [agent] = await agents(org, 1);
    const bad = await org.request("PUT", "/users/me", {
      token: agent!.token,
      body: { alerts: { newLead: ["pager"], inboundReply: [] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toContain("application/problem+json");
    const twice = await org.request("PUT", "/users/me", {
      token: agent!.token,
      body: { alerts: { newLead: ["email", "email"], inboundReply: [] } },
    });
    expect(twice.status).toBe(400);

    const source = await newSource(org);
    const settings = await org.request("PUT", "/routing/settings", { body: { agentsMayClaim: true } });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    const claimed = await processedLead(org, source, { FirstName: "Mine" });
    const claim = await org.request("PUT", `/leads/${claimed.id}/assignee`, {
      token: agent!.token,
      body: { userId: agent!.id },
    });
    expect(claim.status, JSON.stringify(claim.body)).toBe(200);
    const given = await processedLead(org, source, { FirstName: "Given" });
    await assign(org, given.id, agent!.id);
    expect((await mailTo(agent!.email)).subject).toBe("New lead: Given");
    expect((await mailsTo(agent!.email)).map((mail) => mail.subject)).toEqual(["New lead: Given"]);
  });

  it("a lead offered to a pool (first to claim) tells each of them, with its LeadOffered event and lead.offered webhook type", async () => {
    const org = await newOrganization();
    const pool = await agents(org, 2);
    await routingSettings(org, {
      rules: [{ id: "broadcast", strategy: "firstToClaim", pool: pool.map((agent) => agent.id) }],
    });
    const lead = await routedLead(org, await newSource(org), { FirstName: "Offered" });
    expect(lead.offeredTo).toEqual(pool.map((agent) => agent.id));
    for (const agent of pool) {
      const mail = await mailTo(agent.email);
      expect(mail.subject).toBe("New lead to claim: Offered");
      expect(mail.text).toContain(`/app/#/leads/${lead.id}`);
    }
    const offered = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "leadId", value: lead.id }], pageSize: 50 },
    });
    expect(offered.body.items.filter((event: any) => event.eventType === "LeadOffered")).toMatchObject([
      { leadId: lead.id, status: "Offered", statusReason: "rule:broadcast" },
    ]);
    const types = await org.request("GET", "/webhook-event-types");
    expect(JSON.stringify(types.body)).toContain("lead.offered");
  });
});
