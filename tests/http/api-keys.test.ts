import { describe, expect, it } from "vitest";
import { newOrganization, request } from "#tests/helpers/stack";
import { untilStatus } from "#tests/helpers/team";

describe("API keys managed through the API", () => {
  it("creates a key whose secret is answered once and listed only by its prefix, with who created it", async () => {
    const org = await newOrganization();
    const created = await org.request("POST", "/api-keys", {
      body: { name: "CRM sync", scopes: ["leads:read"] },
      token: org.adminToken,
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    expect(created.body).toMatchObject({
      name: "CRM sync",
      scopes: ["leads:read"],
      createdBy: org.userIds.admin,
      status: "Active",
      lastUsedAt: null,
    });

    expect((await request("POST", "/leads/all/my", { token: created.body.key, body: {} })).status).toBe(200);
    // Its scopes are all it can do.
    expect((await request("POST", "/automations", { token: created.body.key, body: { name: "x" } })).status).toBe(403);

    const listed = await org.request("POST", "/api-keys/all/my", { body: {} });
    expect(listed.status).toBe(200);
    const entry = listed.body.items.find((key: { id: string }) => key.id === created.body.id);
    expect(entry).toMatchObject({ prefix: created.body.prefix, createdBy: org.userIds.admin });
    expect(entry.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
  });

  it("refuses keys beyond the creator's permissions, and key management to agents", async () => {
    const org = await newOrganization();
    const beyond = await org.request("POST", "/api-keys", {
      body: { name: "money", scopes: ["billing:write"] },
      token: org.adminToken,
    });
    expect(beyond.status).toBe(403);
    expect(
      (await org.request("POST", "/api-keys", { body: { name: "x", scopes: ["leads:read"] }, token: org.agentToken }))
        .status,
    ).toBe(403);
    expect((await org.request("POST", "/api-keys/all/my", { body: {}, token: org.agentToken })).status).toBe(403);
    expect((await org.request("POST", "/api-keys", { body: { name: "x", scopes: ["no:such"] } })).status).toBe(400);
  });

  it("rotates a key: the new one works at once, the old one for the overlap, and not after an overlap of 0", async () => {
    const org = await newOrganization();
    const created = await org.request("POST", "/api-keys", { body: { name: "rotating", scopes: ["leads:read"] } });
    const rotated = await org.request("POST", `/api-keys/${created.body.id}/rotate`, { body: {} });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ name: "rotating", scopes: ["leads:read"], rotatedFromKeyId: created.body.id });
    expect(rotated.body.key).not.toBe(created.body.key);
    for (const key of [created.body.key, rotated.body.key])
      expect((await request("POST", "/leads/all/my", { token: key, body: {} })).status).toBe(200);
    const old = (await org.request("POST", "/api-keys/all/my", { body: {} })).body.items.find(
      (key: { id: string }) => key.id === created.body.id,
    );
    expect(old.status).toBe("Expiring");
    const hours = (Date.parse(old.expiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    const again = await org.request("POST", `/api-keys/${rotated.body.id}/rotate`, { body: { overlapHours: 0 } });
    expect(again.status).toBe(201);
    await untilStatus(() => request("POST", "/leads/all/my", { token: rotated.body.key, body: {} }), 401);
    expect((await request("POST", "/leads/all/my", { token: again.body.key, body: {} })).status).toBe(200);
  });

  it("revokes a key: 401 within seconds, and a second revoke is a conflict", async () => {
    const org = await newOrganization();
    const created = await org.request("POST", "/api-keys", { body: { name: "leaky", scopes: ["leads:read"] } });
    expect((await request("POST", "/leads/all/my", { token: created.body.key, body: {} })).status).toBe(200);
    expect((await org.request("DELETE", `/api-keys/${created.body.id}`)).status).toBe(204);
    await untilStatus(() => request("POST", "/leads/all/my", { token: created.body.key, body: {} }), 401);
    expect((await org.request("DELETE", `/api-keys/${created.body.id}`)).status).toBe(409);
    expect((await org.request("DELETE", "/api-keys/01JZZZZZZZZZZZZZZZZZZZZZZZ")).status).toBe(404);
    const other = await newOrganization();
    const active = await org.request("POST", "/api-keys", { body: { name: "mine", scopes: ["leads:read"] } });
    expect((await other.request("DELETE", `/api-keys/${active.body.id}`)).status).toBe(404);
  });

  it("records key changes in the audit log, with who, from where, and never the secret", async () => {
    const org = await newOrganization();
    const created = await org.request("POST", "/api-keys", {
      body: { name: "audited", scopes: ["leads:read"] },
      headers: { "user-agent": "audit-test/1.0" },
    });
    await org.request("DELETE", `/api-keys/${created.body.id}`, { headers: { "user-agent": "audit-test/1.0" } });
    const log = await org.request("POST", "/audit-log/all/my", {
      body: { filters: [{ field: "resourceId", value: created.body.id }] },
    });
    expect(log.status).toBe(200);
    expect(log.body.items.map((entry: { action: string }) => entry.action)).toEqual([
      "apiKey.revoked",
      "apiKey.created",
    ]);
    const [revoked] = log.body.items;
    expect(revoked).toMatchObject({
      resourceType: "ApiKey",
      actor: { kind: "user", id: org.userIds.owner },
      changes: { status: { before: "Active", after: "Revoked" } },
      userAgent: "audit-test/1.0",
    });
    expect(revoked.ip).toMatch(/^10\./);
    expect(JSON.stringify(log.body)).not.toContain(created.body.key);
    expect((await org.request("POST", "/audit-log/all/my", { body: {}, token: org.agentToken })).status).toBe(403);
  });
});
