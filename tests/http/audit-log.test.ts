import { describe, expect, it } from "vitest";
import { newOrganization } from "#tests/helpers/stack";

const automation = { name: "Speed to lead" };

describe("the audit log", () => {
  it("records a settings change with the changed fields before and after, who made it and from where", async () => {
    const org = await newOrganization();
    const created = await org.request("POST", "/automations", {
      body: automation,
      headers: { "user-agent": "audit-log-test" },
    });
    expect(created.status).toBe(201);
    const updated = await org.request("PUT", `/automations/${created.body.id}`, {
      body: { ...automation, name: "Renamed", version: 1 },
      token: org.adminToken,
      headers: { "user-agent": "audit-log-test" },
    });
    expect(updated.status).toBe(200);
    const log = await org.request("POST", "/audit-log/all/my", {
      body: { filters: [{ field: "resourceId", value: created.body.id }] },
    });
    expect(log.status).toBe(200);
    expect(log.body.items.map((entry: { action: string }) => entry.action)).toEqual([
      "automation.updated",
      "automation.created",
    ]);
    const [change] = log.body.items;
    expect(change).toMatchObject({
      resourceType: "Automation",
      actor: { kind: "user", id: org.userIds.admin, displayName: "Test admin" },
      userAgent: "audit-log-test",
    });
    expect(change.changes.name).toEqual({ before: "Speed to lead", after: "Renamed" });
    expect(change.changes.version).toEqual({ before: 1, after: 2 });
    expect(change.changes.createdAt).toBeUndefined();
    expect(change.ip).toMatch(/^10\./);
  });

  it("records changes made with an API key as the key, and never stores a secret", async () => {
    const org = await newOrganization();
    const endpoint = await org.request("POST", "/webhook-endpoints", {
      body: { url: "https://crm.example.com/hooks", enabledEventTypes: ["lead.processed"] },
      token: org.apiKey,
    });
    expect(endpoint.status).toBe(201);
    const log = await org.request("POST", "/audit-log/all/my", {
      body: { filters: [{ field: "action", value: "webhookEndpoint.created" }] },
    });
    const [entry] = log.body.items;
    expect(entry).toMatchObject({
      resourceType: "WebhookEndpoint",
      resourceId: endpoint.body.endpoint.id,
      actor: { kind: "apiKey" },
    });
    expect(entry.changes.secret).toEqual({ before: null, after: "[redacted]" });
    expect(JSON.stringify(log.body)).not.toContain(endpoint.body.secret);
  });

  it("pages with the paging query, newest first, and is closed to agents", async () => {
    const org = await newOrganization();
    for (const phoneNumber of ["+12125550101", "+12125550102", "+12125550103"]) {
      expect((await org.request("POST", "/suppressions", { body: { phoneNumber } })).status).toBe(201);
    }
    expect((await org.request("DELETE", `/suppressions/${encodeURIComponent("+12125550102")}`)).status).toBe(204);
    const seen: string[] = [];
    let continuationToken: string | null | undefined;
    do {
      // The suppressions' entries (the test organization's setup records its quiet-hours change too).
      const filters = [{ field: "resourceType", value: "Suppression" }];
      const page = await org.request("POST", "/audit-log/all/my", {
        body: { pageSize: 2, continuationToken, includeCount: true, filters },
      });
      expect(page.status).toBe(200);
      expect(page.body.totalCount).toBe(4);
      seen.push(
        ...page.body.items.map(
          (entry: { action: string; resourceId: string }) => `${entry.action} ${entry.resourceId}`,
        ),
      );
      continuationToken = page.body.continuationToken;
    } while (continuationToken);
    expect(seen).toEqual([
      "suppression.removed +12125550102",
      "suppression.added +12125550103",
      "suppression.added +12125550102",
      "suppression.added +12125550101",
    ]);
    expect((await org.request("POST", "/audit-log/all/my", { body: {}, token: org.agentToken })).status).toBe(403);
  });
});
