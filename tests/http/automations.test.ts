import { describe, expect, it } from "vitest";
import { newOrganization } from "#tests/helpers/stack";

const speedToLead = {
  name: "Speed to lead",
  description: "Text every new lead at once",
  enabled: true,
  triggers: [{ id: "t1", type: "LeadCreated", displayName: "New lead", isEnabled: true, settings: {} }],
  conditionGroups: [],
  actions: [
    { id: "a1", type: "SendSms", order: 0, isEnabled: true, settings: { body: "Hi {{contact.firstName|there}}!" } },
  ],
  connections: [{ id: "c1", sourceNodeId: "t1", targetNodeId: "a1", weight: 1 }],
};

describe("automations", () => {
  it("creates an automation with the full response shape", async () => {
    const organization = await newOrganization("Acme Roofing");
    const response = await organization.request("POST", "/automations", { body: speedToLead });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      id: expect.any(String),
      name: "Speed to lead",
      enabled: true,
      organizationId: organization.organizationId,
      createdByUserId: organization.userIds.owner,
      managementLevel: "Organization",
      isSystemManaged: false,
      lastRunAt: null,
      lastRunStatus: null,
      version: 1,
      user: { id: organization.userIds.owner, name: expect.any(String) },
      organization: { id: organization.organizationId, name: "Acme Roofing" },
      modifiedAt: null,
    });
    expect(response.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const read = await organization.request("GET", `/automations/${response.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(response.body);
  });

  it("accepts the minimal body of the spec: only a name", async () => {
    const organization = await newOrganization();
    const response = await organization.request("POST", "/automations", { body: { name: "Minimal" } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      name: "Minimal",
      enabled: false,
      triggers: [],
      actions: [],
      connections: [],
    });
  });

  it("rejects a missing name, a name over 255 characters and bad nodes, pointing at each field", async () => {
    const organization = await newOrganization();
    const missing = await organization.request("POST", "/automations", { body: { description: "no name" } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: "/name" })]));

    const long = await organization.request("POST", "/automations", { body: { name: "x".repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].pointer).toBe("/name");

    const badNode = await organization.request("POST", "/automations", {
      body: { ...speedToLead, actions: [{ id: "a1", type: "Teleport", isEnabled: true, settings: {} }] },
    });
    expect(badNode.status).toBe(400);
    expect(badNode.body.errors.map((error: { pointer: string }) => error.pointer)).toContain("/actions/0/type");
  });

  it("rejects connections that reference nodes that do not exist", async () => {
    const organization = await newOrganization();
    const response = await organization.request("POST", "/automations", {
      body: { ...speedToLead, connections: [{ id: "c1", sourceNodeId: "t1", targetNodeId: "ghost" }] },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(
      "/connections/0/targetNodeId",
    );
  });

  it("updates with optimistic concurrency: the right version increments, a stale one is a 409", async () => {
    const organization = await newOrganization();
    const created = (await organization.request("POST", "/automations", { body: speedToLead })).body;
    const updated = await organization.request("PUT", `/automations/${created.id}`, {
      body: { ...speedToLead, name: "Renamed", version: 1 },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: "Renamed", version: 2, createdAt: created.createdAt });
    expect(updated.body.modifiedAt).not.toBeNull();

    const stale = await organization.request("PUT", `/automations/${created.id}`, {
      body: { ...speedToLead, name: "Lost update", version: 1 },
    });
    expect(stale.status).toBe(409);
    expect(stale.headers.get("content-type")).toBe("application/problem+json");
    expect((await organization.request("GET", `/automations/${created.id}`)).body.name).toBe("Renamed");
  });

  it("keeps webhook secrets write-only across a GET → PUT round trip", async () => {
    const organization = await newOrganization();
    const body = {
      name: "Notify CRM",
      triggers: [{ id: "t1", type: "LeadCreated", isEnabled: true, settings: {} }],
      actions: [
        {
          id: "a1",
          type: "HttpRequest",
          isEnabled: true,
          settings: { url: "https://crm.example.com/hook", secret: "s".repeat(32) },
        },
      ],
      connections: [{ id: "c1", sourceNodeId: "t1", targetNodeId: "a1" }],
    };
    const created = await organization.request("POST", "/automations", { body });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain("s".repeat(32));
    const roundTrip = await organization.request("PUT", `/automations/${created.body.id}`, { body: created.body });
    expect(roundTrip.status).toBe(200);
    expect(roundTrip.body.actions[0].settings.secret).toBe(created.body.actions[0].settings.secret);
  });

  it("answers 404 for unknown ids and for another organization's automation, on read, update and delete", async () => {
    const owner = await newOrganization();
    const intruder = await newOrganization();
    const created = (await owner.request("POST", "/automations", { body: speedToLead })).body;
    expect((await intruder.request("GET", `/automations/${created.id}`)).status).toBe(404);
    expect((await intruder.request("PUT", `/automations/${created.id}`, { body: { name: "Hijack" } })).status).toBe(
      404,
    );
    expect((await intruder.request("DELETE", `/automations/${created.id}`)).status).toBe(404);
    expect((await owner.request("GET", "/automations/01ARZ3NDEKTSV4RRFFQ69G5FAV")).status).toBe(404);
    const list = await intruder.request("POST", "/automations/all/my", { body: {} });
    expect(list.body.items).toEqual([]);
    expect((await owner.request("GET", `/automations/${created.id}`)).body.name).toBe("Speed to lead");
  });

  it("deletes an automation (204, then 404)", async () => {
    const organization = await newOrganization();
    const created = (await organization.request("POST", "/automations", { body: { name: "Temporary" } })).body;
    const deleted = await organization.request("DELETE", `/automations/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    expect((await organization.request("GET", `/automations/${created.id}`)).status).toBe(404);
  });
});
