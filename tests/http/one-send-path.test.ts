import { describe, expect, it } from "vitest";
import { chain, createAutomation, readyToText, waitForRuns } from "#tests/helpers/automations";
import { setAvailableBalance } from "#tests/helpers/billing";
import { createLead, events, randomNumber, textFrom } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

/** Every outbound message goes through `Messages.send`: an automation's step and a compliance reply get its schema and wallet checks. */
describe("one send path", () => {
  applyStackEnv();

  it("an automation's SendSms whose rendered body breaks the message schema fails its step and stores no message", async () => {
    const org = await newOrganization();
    await readyToText(org);
    // 70 × 21 template characters render to 70 × 100 = 7,000: past the 1,600 an SMS body may have.
    const long = { id: "long", type: "SendSms", settings: { body: "{{contact.firstName}}".repeat(70) } };
    const automation = await createAutomation(org, chain({ type: "LeadCreated" }, [long]));
    const response = await org.request("POST", "/leads", {
      body: { contact: { firstName: "N".repeat(100), phone: { number: randomNumber() } } },
    });
    expect(response.status).toBe(201);
    const [run] = await waitForRuns(org, automation.id);
    const step = run.steps.find(
      (candidate: any) => candidate.nodeId === "long" || candidate.actionId === "long" || candidate.type === "SendSms",
    );
    expect(step).toMatchObject({ status: "Failed" });
    expect(step.error).toMatch(/1600 characters/);
    expect(step.output?.messageId).toBeUndefined();
    expect(await events(org, { eventType: "MessageAccepted" })).toEqual([]);
  });

  it("an automation's SendSms from an empty wallet ends its step Blocked by the wallet and stores no message", async () => {
    const org = await newOrganization();
    await readyToText(org);
    await setAvailableBalance(org, "0");
    const automation = await createAutomation(
      org,
      chain({ type: "LeadCreated" }, [{ id: "hi", type: "SendSms", settings: { body: "Hi there" } }]),
    );
    await createLead(org, randomNumber());
    const [run] = await waitForRuns(org, automation.id);
    const step = run.steps.find((candidate: any) => candidate.type === "SendSms");
    expect(step).toMatchObject({ status: "Blocked", output: { billingStatus: "InsufficientFunds" } });
    expect(await events(org, { eventType: "MessageAccepted" })).toEqual([]);
  });

  it("a HELP reply from an empty wallet is refused like any send: the keyword is still recorded, and no reply is stored", async () => {
    const org = await newOrganization();
    const number = await readyToText(org);
    const phone = randomNumber();
    const lead = await createLead(org, phone);
    await setAvailableBalance(org, "0");
    expect((await textFrom(phone, number.phoneNumber, "HELP")).status).toBe(200);
    expect((await org.request("GET", `/leads/${lead.id}`)).body.metadata.smsHelpRequestedAt).toBeTruthy();
    expect(await events(org, { eventType: "ContactHelpRequested" })).toHaveLength(1);
    expect(await events(org, { eventType: "MessageAccepted" })).toEqual([]);
  });
});
