import { describe, expect, it } from "vitest";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

async function createAutomations(organization: TestOrganization, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - start) }, (_, offset) =>
        organization.request("POST", "/automations", {
          body: {
            name: `Automation ${String(start + offset).padStart(3, "0")}`,
            visibility: (start + offset) % 2 === 0 ? "Private" : "Organization",
          },
        }),
      ),
    );
    expect(batch.map((response) => response.status)).toEqual(batch.map(() => 201));
    ids.push(...batch.map((response) => response.body.id as string));
  }
  return ids;
}

async function pageThrough(organization: TestOrganization, query: Record<string, unknown>) {
  const seen: any[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const response: { status: number; body: { items: any[]; continuationToken: string | null } } =
      await organization.request("POST", "/automations/all/my", { body: { ...query, continuationToken: token } });
    expect(response.status).toBe(200);
    seen.push(...response.body.items);
    token = response.body.continuationToken;
    pages += 1;
  } while (token && pages < 100);
  return { seen, pages };
}

describe("paging (spec 2.7)", () => {
  it("returns every item exactly once across pages, for several sorts and filters", async () => {
    const organization = await newOrganization();
    const ids = await createAutomations(organization, 23);

    const byCreated = await pageThrough(organization, { pageSize: 5 });
    expect(byCreated.seen.map((item) => item.id).sort()).toEqual([...ids].sort());
    expect(byCreated.pages).toBe(5);
    const createdAts = byCreated.seen.map((item) => item.createdAt);
    expect(createdAts).toEqual([...createdAts].sort().reverse());

    const byName = await pageThrough(organization, { pageSize: 4, orderBy: [{ field: "name", direction: "asc" }] });
    expect(byName.seen.map((item) => item.name)).toEqual(
      Array.from({ length: 23 }, (_, index) => `Automation ${String(index).padStart(3, "0")}`),
    );

    const privateOnly = await pageThrough(organization, {
      pageSize: 3,
      filters: [{ field: "visibility", value: "Private" }],
      orderBy: [{ field: "name", direction: "desc" }],
    });
    expect(privateOnly.seen).toHaveLength(12);
    expect(new Set(privateOnly.seen.map((item) => item.id)).size).toBe(12);
    expect(privateOnly.seen.every((item) => item.visibility === "Private")).toBe(true);
    expect(privateOnly.seen[0].name).toBe("Automation 022");
  });

  it("applies the default and maximum page size and reports the effective one", async () => {
    const organization = await newOrganization();
    expect((await organization.request("POST", "/automations/all/my", { body: {} })).body.pageSize).toBe(50);
    expect(
      (await organization.request("POST", "/automations/all/my", { body: { pageSize: 5000 } })).body.pageSize,
    ).toBe(200);
    expect((await organization.request("POST", "/automations/all/my", { body: { pageSize: 0 } })).status).toBe(400);
  });

  it("counts when asked and searches case-insensitively", async () => {
    const organization = await newOrganization();
    await createAutomations(organization, 3);
    await organization.request("POST", "/automations", { body: { name: "Missed call follow-up" } });
    const response = await organization.request("POST", "/automations/all/my", {
      body: { search: "MISSED", includeCount: true },
    });
    expect(response.body.totalCount).toBe(1);
    expect(response.body.items[0].name).toBe("Missed call follow-up");
  });

  it("refuses unknown filter, sort, range and search fields with a 400 naming each", async () => {
    const organization = await newOrganization();
    const response = await organization.request("POST", "/automations/all/my", {
      body: {
        orderBy: [{ field: "colour" }],
        filters: [{ field: "secret", value: "x" }],
        rangeFilters: [{ field: "name", greaterThan: "a" }],
        searchFields: ["password"],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/filters/0/field",
      "/orderBy/0/field",
      "/rangeFilters/0/field",
      "/searchFields/0",
    ]);
    expect(response.body.errors[0].detail).toContain("colour");
  });

  it("refuses forged, truncated, foreign and mismatched continuation tokens with 400", async () => {
    const organization = await newOrganization();
    const other = await newOrganization();
    await createAutomations(organization, 4);
    await createAutomations(other, 4);
    const first = await organization.request("POST", "/automations/all/my", { body: { pageSize: 2 } });
    const token: string = first.body.continuationToken;
    expect(token).toEqual(expect.any(String));

    const [payload, signature] = token.split(".");
    const tampered = Buffer.from(JSON.stringify({ b: "x", c: ["2000-01-01T00:00:00.000Z", "0"] })).toString(
      "base64url",
    );
    const attempts = [`${tampered}.${signature}`, token.slice(0, -3), `${payload}`, "not-a-token"];
    for (const continuationToken of attempts) {
      const response = await organization.request("POST", "/automations/all/my", {
        body: { pageSize: 2, continuationToken },
      });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].pointer).toBe("/continuationToken");
    }
    const mismatched = await organization.request("POST", "/automations/all/my", {
      body: { pageSize: 2, continuationToken: token, orderBy: [{ field: "name" }] },
    });
    expect(mismatched.status).toBe(400);
    const foreign = await other.request("POST", "/automations/all/my", {
      body: { pageSize: 2, continuationToken: token },
    });
    expect(foreign.status).toBe(400);
  });
});
