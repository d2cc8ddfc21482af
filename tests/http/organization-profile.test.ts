import { describe, expect, it } from "vitest";
import { chain, createAutomation, readyToText, smsStep, waitForRun } from "#tests/helpers/automations";
import { createLead, randomNumber } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

/** The organization's business profile: `GET` and `PUT /organizations/me` (absent fields kept). */
describe("the organization profile", () => {
  it("reads the profile, and an owner's change is answered and read back", async () => {
    const org = await newOrganization("Acme Roofing");
    const read = await org.request("GET", "/organizations/me");
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: org.organizationId,
      name: "Acme Roofing",
      timeZone: "America/New_York",
      phone: null,
      website: null,
      modifiedAt: null,
    });

    const updated = await org.request("PUT", "/organizations/me", {
      body: {
        name: "  Acme Roofing & Gutters ",
        timeZone: "America/Chicago",
        phone: "(312) 555-0100",
        website: "https://acme.example.com",
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: org.organizationId,
      name: "Acme Roofing & Gutters",
      timeZone: "America/Chicago",
      phone: "+13125550100",
      website: "https://acme.example.com",
      createdAt: read.body.createdAt,
      modifiedAt: expect.any(String),
    });
    expect((await org.request("GET", "/organizations/me")).body).toEqual(updated.body);
  });

  it("keeps the fields a change leaves out, and null clears the phone or website", async () => {
    const org = await newOrganization("Partial Ltd");
    const full = { timeZone: "Europe/Berlin", phone: "+493012345678", website: "https://partial.example.com" };
    expect((await org.request("PUT", "/organizations/me", { body: full, token: org.adminToken })).status).toBe(200);

    const renamed = await org.request("PUT", "/organizations/me", { body: { name: "Partial GmbH" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Partial GmbH", ...full });

    const cleared = await org.request("PUT", "/organizations/me", { body: { website: null } });
    expect(cleared.body).toMatchObject({ name: "Partial GmbH", ...full, website: null });
    expect((await org.request("GET", "/organizations/me")).body).toMatchObject({ phone: full.phone, website: null });
  });

  it("refuses an unknown time zone, a bad phone or website and an empty name with 400s naming each field", async () => {
    const org = await newOrganization();
    const badZone = await org.request("PUT", "/organizations/me", { body: { timeZone: "Mars/Olympus" } });
    expect(badZone.status).toBe(400);
    expect(badZone.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(badZone.body.errors).toEqual([
      { pointer: "/timeZone", detail: "Must be an IANA time zone, e.g. America/New_York." },
    ]);

    const several = await org.request("PUT", "/organizations/me", {
      body: { name: " ", phone: "12", website: "ftp://files.example.com", color: "red" },
    });
    expect(several.status).toBe(400);
    expect(several.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/color",
      "/name",
      "/phone",
      "/website",
    ]);
    // Nothing of a refused change is stored.
    expect((await org.request("GET", "/organizations/me")).body).toMatchObject({
      timeZone: "America/New_York",
      phone: null,
      website: null,
      modifiedAt: null,
    });
  });

  it("agents read the profile but may not change it (403)", async () => {
    const org = await newOrganization("Agents Read");
    const read = await org.request("GET", "/organizations/me", { token: org.agentToken });
    expect(read.status).toBe(200);
    expect(read.body.name).toBe("Agents Read");
    const change = await org.request("PUT", "/organizations/me", {
      body: { name: "Agent was here" },
      token: org.agentToken,
    });
    expect(change.status).toBe(403);
    expect((await org.request("GET", "/organizations/me")).body.name).toBe("Agents Read");
  });

  it("an API key reads with users:read and changes with users:write, and nothing without them", async () => {
    const org = await newOrganization("Keyed");
    const keyWith = async (scopes: string[]) => {
      const created = await org.request("POST", "/api-keys", { body: { name: scopes.join(" "), scopes } });
      expect(created.status).toBe(201);
      return created.body.key as string;
    };
    const [reader, writer, unrelated] = await Promise.all([
      keyWith(["users:read"]),
      keyWith(["users:write"]),
      keyWith(["leads:read"]),
    ]);
    expect((await org.request("GET", "/organizations/me", { token: reader })).status).toBe(200);
    expect((await org.request("PUT", "/organizations/me", { body: { name: "x" }, token: reader })).status).toBe(403);
    expect((await org.request("GET", "/organizations/me", { token: unrelated })).status).toBe(403);
    const written = await org.request("PUT", "/organizations/me", { body: { website: null }, token: writer });
    expect(written.status).toBe(200);
    expect((await org.request("GET", "/organizations/me", { token: org.apiKey })).status).toBe(200);
  });

  it("each organization reads and changes only its own profile", async () => {
    const [a, b] = await Promise.all([newOrganization("Tenant A"), newOrganization("Tenant B")]);
    const changed = await a.request("PUT", "/organizations/me", {
      body: { name: "Tenant A renamed", timeZone: "Asia/Tokyo" },
    });
    expect(changed.body.id).toBe(a.organizationId);
    const seenByB = await b.request("GET", "/organizations/me");
    expect(seenByB.body).toMatchObject({ id: b.organizationId, name: "Tenant B", timeZone: "America/New_York" });
    const seenByBKey = await b.request("GET", "/organizations/me", { token: b.apiKey });
    expect(seenByBKey.body.id).toBe(b.organizationId);
    const bOwnChange = await b.request("PUT", "/organizations/me", { body: { phone: "+12125550100" } });
    expect(bOwnChange.body.id).toBe(b.organizationId);
    expect((await a.request("GET", "/organizations/me")).body).toMatchObject({
      name: "Tenant A renamed",
      timeZone: "Asia/Tokyo",
      phone: null,
    });
  });

  it("records each change in the audit log with the changed fields before and after; a change to nothing records none", async () => {
    const org = await newOrganization("Audited");
    const changed = await org.request("PUT", "/organizations/me", {
      body: { name: "Audited Inc", timeZone: "America/Denver" },
      token: org.adminToken,
      headers: { "user-agent": "organization-profile-test" },
    });
    expect(changed.status).toBe(200);
    const same = await org.request("PUT", "/organizations/me", { body: { name: "Audited Inc" } });
    expect(same.body.modifiedAt).toBe(changed.body.modifiedAt);

    const log = await org.request("POST", "/audit-log/all/my", {
      body: { filters: [{ field: "resourceType", value: "Organization" }] },
    });
    expect(log.status).toBe(200);
    expect(log.body.items).toHaveLength(1);
    const [entry] = log.body.items;
    expect(entry).toMatchObject({
      action: "organization.updated",
      resourceId: org.organizationId,
      actor: { kind: "user", id: org.userIds.admin },
      userAgent: "organization-profile-test",
    });
    expect(entry.changes.name).toEqual({ before: "Audited", after: "Audited Inc" });
    expect(entry.changes.timeZone).toEqual({ before: "America/New_York", after: "America/Denver" });
    expect(entry.changes.phone).toBeUndefined();
  });

  it("message templates name the profile's name, phone and website; a cleared website takes the placeholder's fallback", async () => {
    const org = await newOrganization("Template Co");
    await readyToText(org);
    const profile = { name: "Acme Roofing", phone: "+13125550100", website: "https://acme.example.com" };
    expect((await org.request("PUT", "/organizations/me", { body: profile })).status).toBe(200);
    const automation = await createAutomation(
      org,
      chain({ type: "Manual" }, [
        {
          id: "hello",
          type: "SendSms",
          settings: {
            body: "{{organization.name}}: call {{organization.phone}} or see {{organization.website|our office}}.",
          },
        },
      ]),
    );
    const textOf = async () => {
      const lead = await createLead(org, randomNumber("212"));
      const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: lead.id } });
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const run = await waitForRun(org, automation.id, started.body.id);
      expect(run.status, JSON.stringify(run.steps)).toBe("Succeeded");
      return (await org.request("GET", `/messages/${smsStep(run).output.messageId}`)).body.body as string;
    };
    expect(await textOf()).toBe("Acme Roofing: call +13125550100 or see https://acme.example.com.");
    expect((await org.request("PUT", "/organizations/me", { body: { website: null } })).status).toBe(200);
    expect(await textOf()).toBe("Acme Roofing: call +13125550100 or see our office.");
  });
});
