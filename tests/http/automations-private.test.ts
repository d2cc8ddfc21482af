import { describe, expect, it } from "vitest";
import { keys } from "#core/db/keys";
import { table } from "#core/db/items";
import { newOrganization } from "#tests/helpers/stack";

const crmToken = "Bearer crm-live-0123456789abcdef";

const withCrmCall = (visibility: "Private" | "Organization") => ({
  name: "Push to CRM",
  visibility,
  triggers: [{ id: "t1", type: "LeadCreated", isEnabled: true, settings: {} }],
  connections: [{ id: "c1", sourceNodeId: "t1", targetNodeId: "a1", weight: 1 }],
  actions: [
    {
      id: "a1",
      type: "HttpRequest",
      order: 0,
      isEnabled: true,
      settings: {
        url: "https://crm.example.com/hooks/leads",
        headers: { Authorization: crmToken, "X-Api-Key": "k-123456", "X-Trace": "visible" },
      },
    },
  ],
});

describe("automation visibility and credentials in actions", () => {
  it("hides an admin's Private automation from agents, by id and in the list", async () => {
    const org = await newOrganization();
    const created = await org.request("POST", "/automations", { body: withCrmCall("Private"), token: org.adminToken });
    expect(created.status).toBe(201);
    expect((await org.request("GET", `/automations/${created.body.id}`, { token: org.agentToken })).status).toBe(404);
    const listed = await org.request("POST", "/automations/all/my", { body: {}, token: org.agentToken });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((a: { id: string }) => a.id)).not.toContain(created.body.id);
    expect(
      (await org.request("POST", `/automations/${created.body.id}/runs/all/my`, { body: {}, token: org.agentToken }))
        .status,
    ).toBe(404);
    // Its creator, the owner and the organization's API key see it.
    for (const token of [org.adminToken, org.ownerToken, org.apiKey]) {
      expect((await org.request("GET", `/automations/${created.body.id}`, { token })).status).toBe(200);
    }
    // An Organization automation is visible to agents.
    const shared = await org.request("POST", "/automations", {
      body: withCrmCall("Organization"),
      token: org.adminToken,
    });
    expect((await org.request("GET", `/automations/${shared.body.id}`, { token: org.agentToken })).status).toBe(200);
  });

  it("never answers a credential header of an HttpRequest action, and keeps it when the marker is sent back", async () => {
    const org = await newOrganization();
    const created = await org.request("POST", "/automations", { body: withCrmCall("Organization") });
    expect(created.status).toBe(201);
    const headers = created.body.actions[0].settings.headers;
    expect(headers).toEqual({
      Authorization: "__redacted_secret__",
      "X-Api-Key": "__redacted_secret__",
      "X-Trace": "visible",
    });
    const read = await org.request("GET", `/automations/${created.body.id}`, { token: org.agentToken });
    expect(JSON.stringify(read.body)).not.toContain("crm-live");
    const listed = await org.request("POST", "/automations/all/my", { body: {} });
    expect(JSON.stringify(listed.body)).not.toContain("crm-live");

    // Sending the read automation back unchanged keeps the stored credentials; a marker where none is stored is a 400.
    const { id: _id, ...rest } = read.body;
    const resent = await org.request("PUT", `/automations/${created.body.id}`, {
      body: {
        name: rest.name,
        visibility: rest.visibility,
        triggers: rest.triggers,
        connections: rest.connections,
        actions: rest.actions,
      },
    });
    expect(resent.status).toBe(200);
    const { Item } = await table.get({ Key: keys.automation(org.organizationId, created.body.id) });
    expect(Item!.actions[0].settings.headers).toEqual({
      Authorization: crmToken,
      "X-Api-Key": "k-123456",
      "X-Trace": "visible",
    });
    const stored = await org.request("PUT", `/automations/${created.body.id}`, {
      body: {
        name: "Push",
        triggers: rest.triggers,
        connections: rest.connections,
        actions: [
          { ...rest.actions[0], settings: { ...rest.actions[0].settings, headers: { Cookie: "__redacted_secret__" } } },
        ],
      },
    });
    expect(stored.status).toBe(400);
    const log = await org.request("POST", "/audit-log/all/my", {
      body: { filters: [{ field: "resourceId", value: created.body.id }] },
    });
    expect(JSON.stringify(log.body)).not.toContain("crm-live");
  });
});
