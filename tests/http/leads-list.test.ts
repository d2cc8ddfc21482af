import { beforeAll, describe, expect, it } from "vitest";
import { intakeByBody, newSource, uniquePhone, waitForLead, type TestSource } from "#tests/helpers/leads";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

type Lead = { id: string; createdAt: string; sourceId: string; processingStatus: string; contact: any; metadata: any };

/** Reads every page of a query, asserting each page's size and token discipline; returns the ids in order. */
async function readAll(
  org: TestOrganization,
  query: Record<string, unknown>,
  pageSize: number,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const response: { status: number; body: { items: Lead[]; pageSize: number; continuationToken: string | null } } =
      await org.request("POST", "/leads/all/my", {
        body: { ...query, pageSize, continuationToken: token },
      });
    expect(response.status).toBe(200);
    expect(response.body.pageSize).toBe(pageSize);
    expect(response.body.items.length).toBeLessThanOrEqual(pageSize);
    ids.push(...response.body.items.map((lead) => lead.id));
    token = response.body.continuationToken;
    pages++;
  } while (token);
  return { ids, pages };
}

describe("POST /leads/all/my", () => {
  let org: TestOrganization;
  let sourceA: TestSource;
  let sourceB: TestSource;
  const created: Lead[] = [];
  const prices = ["0.10", "12.50", "3", "100.01", "0.9", "7.25", "0.10"];

  beforeAll(async () => {
    org = await newOrganization();
    sourceA = await newSource(org, { vertical: "Insurance", product: "Auto" });
    sourceB = await newSource(org, { vertical: "Solar", product: "Panels" });
    for (const [index, price] of prices.entries()) {
      const source = index % 2 === 0 ? sourceA : sourceB;
      const response = await intakeByBody(source, {
        FirstName: index === 3 ? "Marie" : `First${index}`,
        LastName: index === 3 ? "Curie" : `Last${index}`,
        Phone: uniquePhone(),
        Email: index === 5 ? "MixedCase.Person@Example.com" : `p${index}-${Date.now()}@example.com`,
        Price: price,
        UtmSource: index < 3 ? "google" : "facebook",
      });
      created.push(response.body);
    }
    // A lead without contact channel ends Rejected: a second processing status to filter on.
    created.push((await intakeByBody(sourceA, { FirstName: "Nobody", Price: "1" })).body);
    for (const lead of created) await waitForLead(org, lead.id);
  });

  it("lists newest first by default, each lead exactly once across pages", async () => {
    const { ids, pages } = await readAll(org, {}, 3);
    expect(pages).toBe(3);
    expect(ids).toEqual([...created].reverse().map((lead) => lead.id));
  });

  it("lists one source's leads newest first, and oldest first on request", async () => {
    const ofA = created.filter((lead) => lead.sourceId === sourceA.sourceId).map((lead) => lead.id);
    const filter = { filters: [{ field: "sourceId", value: sourceA.sourceId }] };
    expect((await readAll(org, filter, 2)).ids).toEqual([...ofA].reverse());
    expect((await readAll(org, { ...filter, orderBy: [{ field: "createdAt", direction: "asc" }] }, 2)).ids).toEqual(
      ofA,
    );
  });

  it("filters on processing status, vertical, product, compliance status and metadata.utmSource", async () => {
    const count = async (filters: unknown[]) =>
      (await org.request("POST", "/leads/all/my", { body: { filters, includeCount: true } })).body.totalCount as number;
    expect(await count([{ field: "processingStatus", value: "Rejected" }])).toBe(1);
    expect(await count([{ field: "processingStatus", value: "Processed" }])).toBe(7);
    expect(await count([{ field: "vertical", value: "solar" }])).toBe(3);
    expect(await count([{ field: "product", value: "Auto" }])).toBe(5);
    expect(await count([{ field: "complianceStatus", value: "Allowed" }])).toBe(7);
    expect(await count([{ field: "metadata.utmSource", value: "google" }])).toBe(3);
    expect(
      await count([
        { field: "metadata.utmSource", value: "google" },
        { field: "sourceId", value: sourceB.sourceId },
      ]),
    ).toBe(1);
  });

  it("searches name, email and phone case-insensitively", async () => {
    const search = async (term: string, searchFields?: string[]) =>
      (await org.request("POST", "/leads/all/my", { body: { search: term, searchFields } })).body.items.map(
        (lead: Lead) => lead.id,
      );
    expect(await search("marie cur")).toEqual([created[3]!.id]);
    expect(await search("mixedcase.person")).toEqual([created[5]!.id]);
    const phone = created[2]!.contact.phone.number as string;
    expect(await search(phone.slice(-7), ["phone"])).toEqual([created[2]!.id]);
    expect(await search("marie", ["email"])).toEqual([]);
  });

  it("orders by price exactly (decimal, not text or float) in both directions, paging exactly once", async () => {
    const priced = created.filter((lead) => lead.metadata.price !== null);
    const byPrice = [...priced].sort(
      (a, b) => Number(a.metadata.price) - Number(b.metadata.price) || (a.id < b.id ? -1 : 1),
    );
    const asc = await readAll(org, { orderBy: [{ field: "price", direction: "asc" }] }, 3);
    expect(asc.ids).toEqual(byPrice.map((lead) => lead.id));
    const desc = await readAll(org, { orderBy: [{ field: "price", direction: "desc" }] }, 2);
    expect(new Set(desc.ids).size).toBe(priced.length);
    expect(desc.ids[0]).toBe(created[3]!.id);
  });

  it("orders by modifiedAt and ranges over createdAt and price", async () => {
    const byModified = await readAll(org, { orderBy: [{ field: "modifiedAt", direction: "desc" }] }, 4);
    expect(new Set(byModified.ids).size).toBe(created.length);
    const middle = created[3]!.createdAt;
    const after = await readAll(org, { rangeFilters: [{ field: "createdAt", greaterThan: middle }] }, 2);
    expect(after.ids).toEqual(
      created
        .slice(4)
        .reverse()
        .map((lead) => lead.id),
    );
    const cheap = await org.request("POST", "/leads/all/my", {
      body: { rangeFilters: [{ field: "price", greaterThanOrEqual: "0.10", lessThan: "1" }], includeCount: true },
    });
    expect(cheap.body.totalCount).toBe(3);
  });

  it("refuses unsupported fields and bad range values with 400", async () => {
    // Field names are enums of the contract: every unusable one is named at once.
    const fields = await org.request("POST", "/leads/all/my", {
      body: {
        filters: [{ field: "contact.firstName", value: "x" }],
        orderBy: [{ field: "email", direction: "asc" }],
        rangeFilters: [{ field: "price", lessThan: 1 }],
        searchFields: ["sourceMetadata"],
      },
    });
    expect(fields.status).toBe(400);
    expect(fields.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/filters/0/field",
      "/orderBy/0/field",
      "/searchFields/0",
    ]);
    // A bound of the wrong kind for its field (a rule the schema cannot express) is named too.
    const bound = await org.request("POST", "/leads/all/my", {
      body: { rangeFilters: [{ field: "price", lessThan: "cheap" }] },
    });
    expect(bound.status).toBe(400);
    expect(bound.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(["/rangeFilters/0/lessThan"]);
  });

  it("refuses a continuation token used with another query", async () => {
    const first = await org.request("POST", "/leads/all/my", { body: { pageSize: 2 } });
    const misuse = await org.request("POST", "/leads/all/my", {
      body: {
        pageSize: 2,
        continuationToken: first.body.continuationToken,
        filters: [{ field: "vertical", value: "Solar" }],
      },
    });
    expect(misuse.status).toBe(400);
  });
});
