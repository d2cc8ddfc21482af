import { describe, expect, it } from "vitest";
import { untilStatus } from "#tests/helpers/team";
import { newOrganization, request, type TestOrganization } from "#tests/helpers/stack";

const createSource = (org: TestOrganization, body: Record<string, unknown> = {}) =>
  org.request("POST", "/sources", { body: { name: "Acme Leads", ...body } });

const intake = (sourceId: string, apiKey: string, extra = "") =>
  request(
    "GET",
    `/leads/intake?sourceId=${encodeURIComponent(sourceId)}&apiKey=${encodeURIComponent(apiKey)}&FirstName=Ada&Phone=2015550123${extra}`,
  );

describe("lead sources", () => {
  it("creates a source and shows its key once, storing only a preview", async () => {
    const org = await newOrganization();
    const created = await createSource(org, { defaultPrice: "0.10", vertical: "Insurance", product: "Auto" });
    expect(created.status).toBe(201);
    expect(created.body.apiKey).toMatch(new RegExp(`^lk_${org.organizationId}_[A-Za-z0-9_-]{32,}$`));
    expect(created.body.sourceId).toBe(created.body.source.id);
    expect(created.body.source).toMatchObject({
      name: "Acme Leads",
      enabled: true,
      defaultPrice: "0.10",
      vertical: "Insurance",
      product: "Auto",
      allowedIps: null,
      duplicateWindowHours: 24,
      keyRotatedAt: null,
      modifiedAt: null,
    });
    const read = await org.request("GET", `/sources/${created.body.sourceId}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body.source);
    expect(JSON.stringify(read.body)).not.toContain(created.body.apiKey);
  });

  it("rejects an invalid source listing every offending field", async () => {
    const org = await newOrganization();
    const response = await org.request("POST", "/sources", {
      body: { name: "", defaultPrice: "1.2.3", allowedIps: ["300.1.1.1"], duplicateWindowHours: -1, colour: "red" },
    });
    expect(response.status).toBe(400);
    const pointers = response.body.errors.map((error: { pointer: string }) => error.pointer).sort();
    expect(pointers).toEqual(["/allowedIps/0", "/colour", "/defaultPrice", "/duplicateWindowHours", "/name"]);
  });

  it("lets members read sources but not create them", async () => {
    const org = await newOrganization();
    const created = await createSource(org);
    expect((await org.request("POST", "/sources", { token: org.memberToken, body: { name: "x" } })).status).toBe(403);
    expect((await org.request("GET", `/sources/${created.body.sourceId}`, { token: org.memberToken })).status).toBe(
      200,
    );
    expect((await org.request("GET", `/sources/${created.body.sourceId}`, { token: null })).status).toBe(401);
  });

  it("updates settings, and a disabled source's key is refused with 401", async () => {
    const org = await newOrganization();
    const { body } = await createSource(org);
    expect((await intake(body.sourceId, body.apiKey)).status).toBe(201);

    const updated = await org.request("PUT", `/sources/${body.sourceId}`, {
      body: {
        name: "Renamed",
        enabled: false,
        defaultPrice: "3",
        vertical: null,
        product: "Home",
        duplicateWindowHours: 0,
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: "Renamed",
      enabled: false,
      defaultPrice: "3",
      product: "Home",
      duplicateWindowHours: 0,
    });
    expect(updated.body.modifiedAt).toEqual(expect.any(String));

    const refused = await intake(body.sourceId, body.apiKey);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(refused.headers.get("ratelimit-policy")).toMatch(/^"ip";/);

    await org.request("PUT", `/sources/${body.sourceId}`, { body: { name: "Renamed", enabled: true } });
    expect((await intake(body.sourceId, body.apiKey)).status).toBe(201);
  });

  it("rotates the key with no overlap: the new one works at once and the old one stops", async () => {
    const org = await newOrganization();
    const { body } = await createSource(org);
    const rotated = await org.request("POST", `/sources/${body.sourceId}/keys`, { body: { overlapHours: 0 } });
    expect(rotated.status).toBe(201);
    expect(rotated.body.apiKey).not.toBe(body.apiKey);
    expect(rotated.body.source.keyRotatedAt).toEqual(expect.any(String));
    expect((await intake(body.sourceId, body.apiKey)).status).toBe(401);
    const accepted = await intake(body.sourceId, rotated.body.apiKey);
    expect(accepted.status).toBe(201);
    expect(accepted.headers.get("ratelimit-policy")).toMatch(/^"intake";/);
  });

  it("rotates the key with the default overlap: both keys work, and revoking stops them both within seconds", async () => {
    const org = await newOrganization();
    const { body } = await createSource(org);
    const rotated = await org.request("POST", `/sources/${body.sourceId}/keys`);
    expect(rotated.status).toBe(201);
    const hours = (Date.parse(rotated.body.source.previousKeyExpiresAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect((await intake(body.sourceId, body.apiKey)).status).toBe(201);
    expect((await intake(body.sourceId, rotated.body.apiKey)).status).toBe(201);

    const revoked = await org.request("DELETE", `/sources/${body.sourceId}/keys`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.keyRevokedAt).toEqual(expect.any(String));
    await untilStatus(() => intake(body.sourceId, rotated.body.apiKey), 401);
    expect((await intake(body.sourceId, body.apiKey)).status).toBe(401);
    expect((await org.request("DELETE", `/sources/${body.sourceId}/keys`)).status).toBe(409);
    expect((await org.request("DELETE", `/sources/${body.sourceId}/keys`, { token: org.agentToken })).status).toBe(403);

    const fresh = await org.request("POST", `/sources/${body.sourceId}/keys`);
    expect((await intake(body.sourceId, fresh.body.apiKey)).status).toBe(201);
    const log = await org.request("POST", "/audit-log/all/my", {
      body: { filters: [{ field: "resourceId", value: body.sourceId }] },
    });
    expect(log.body.items.map((entry: { action: string }) => entry.action)).toEqual([
      "source.keyRotated",
      "source.keyRevoked",
      "source.keyRotated",
      "source.created",
    ]);
  });

  it("accepts leads only from the allowed addresses when a source lists them", async () => {
    const org = await newOrganization();
    const { body } = await createSource(org, { allowedIps: ["203.0.113.0/24"] });
    const url = `/leads/intake?sourceId=${body.sourceId}&apiKey=${encodeURIComponent(body.apiKey)}&Phone=2015550123`;
    expect((await request("GET", url, { sourceIp: "203.0.113.9" })).status).toBe(201);
    expect((await request("GET", url, { sourceIp: "198.51.100.4" })).status).toBe(401);
  });

  it("never shows one organization's sources to another, by id, by list or by key", async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    const { body } = await createSource(a);
    expect((await b.request("GET", `/sources/${body.sourceId}`)).status).toBe(404);
    expect((await b.request("PUT", `/sources/${body.sourceId}`, { body: { name: "mine" } })).status).toBe(404);
    expect((await b.request("POST", `/sources/${body.sourceId}/keys`)).status).toBe(404);
    const listed = await b.request("POST", "/sources/all/my", { body: {} });
    expect(listed.body.items).toEqual([]);
    // A's key with a source id of B's (mismatched credentials) is refused.
    const other = await createSource(b);
    expect((await intake(other.body.sourceId, body.apiKey)).status).toBe(401);
  });

  it("lists sources page by page, each exactly once, with filters and counts", async () => {
    const org = await newOrganization();
    for (let index = 0; index < 5; index++)
      await createSource(org, { name: `Source ${index}`, enabled: index % 2 === 0 });
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page: { body: { items: { name: string }[]; continuationToken: string | null; totalCount: number | null } } =
        await org.request("POST", "/sources/all/my", {
          body: {
            pageSize: 2,
            orderBy: [{ field: "name", direction: "asc" }],
            includeCount: true,
            continuationToken: token,
          },
        });
      expect(page.body.totalCount).toBe(5);
      seen.push(...page.body.items.map((item) => item.name));
      token = page.body.continuationToken;
    } while (token);
    expect(seen).toEqual(["Source 0", "Source 1", "Source 2", "Source 3", "Source 4"]);
    const enabled = await org.request("POST", "/sources/all/my", {
      body: { filters: [{ field: "enabled", value: true }] },
    });
    expect(enabled.body.items).toHaveLength(3);
    const bad = await org.request("POST", "/sources/all/my", { body: { filters: [{ field: "keyHash", value: "x" }] } });
    expect(bad.status).toBe(400);
  });
});
