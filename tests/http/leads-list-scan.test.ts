import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environmentNames } from "#stacks/definitions";
import { startHttpServer, type LocalHttpServer } from "#local/http-server";
import { uniqueEmail } from "#tests/helpers/leads";
import { applyStackEnv, newOrganization, request, type TestOrganization } from "#tests/helpers/stack";

type Lead = {
  id: string;
  createdAt: string;
  contact: { firstName: string };
  metadata: { utmSource: string | null; vertical: string | null };
};
type PageBody = { items: Lead[]; pageSize: number; totalCount: number | null; continuationToken: string | null };

const leadCount = 120;
/** Leads that carry the rare vertical: far apart, so a small read budget runs out between them. */
const rare = new Set([4, 5, 61, 117]);

/** Follows continuation tokens to the end; returns every page as answered. */
async function readPages(
  list: (body: Record<string, unknown>) => Promise<{ status: number; body: PageBody }>,
  query: Record<string, unknown>,
) {
  const pages: PageBody[] = [];
  let token: string | null = null;
  do {
    const response = await list({ ...query, continuationToken: token });
    expect(response.status).toBe(200);
    expect(response.body.items.length).toBeLessThanOrEqual(response.body.pageSize);
    pages.push(response.body);
    token = response.body.continuationToken;
  } while (token && pages.length < 200);
  expect(token).toBeNull();
  return { pages, ids: pages.flatMap((page) => page.items.map((lead) => lead.id)) };
}

describe("POST /leads/all/my with filters in createdAt order (key-ordered scan)", () => {
  let org: TestOrganization;
  let leads: Lead[] = [];
  const list = (body: Record<string, unknown>) => org.request("POST", "/leads/all/my", { body });

  beforeAll(async () => {
    org = await newOrganization();
    for (let start = 0; start < leadCount; start += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, offset) => {
          const index = start + offset;
          return org.request("POST", "/leads", {
            body: {
              contact: { firstName: `Lead${index}`, email: uniqueEmail() },
              metadata: {
                utmSource: index % 3 === 0 ? "scan-match" : "other",
                vertical: rare.has(index) ? "Rare" : "Common",
              },
            },
          });
        }),
      );
      expect(batch.map((response) => response.status)).toEqual(batch.map(() => 201));
      leads.push(...batch.map((response) => response.body as Lead));
    }
    // Lead ids are ULIDs of createdAt: id order is the listing's createdAt order with its id tie-break.
    leads = leads.sort((a, b) => (a.id < b.id ? -1 : 1));
  });

  const idsWhere = (keep: (lead: Lead) => boolean) => leads.filter(keep).map((lead) => lead.id);

  it("returns every matching lead exactly once, in createdAt order, oldest and newest first, in full pages", async () => {
    const matching = idsWhere((lead) => lead.metadata.utmSource === "scan-match");
    expect(matching).toHaveLength(40);
    const filters = [{ field: "metadata.utmSource", value: "SCAN-MATCH" }];

    const oldest = await readPages(list, { pageSize: 7, filters, orderBy: [{ field: "createdAt", direction: "asc" }] });
    expect(oldest.ids).toEqual(matching);
    // The look-ahead keeps pages full and the last page without a token.
    expect(oldest.pages.map((page) => page.items.length)).toEqual([7, 7, 7, 7, 7, 5]);

    const newest = await readPages(list, {
      pageSize: 7,
      filters,
      orderBy: [{ field: "createdAt", direction: "desc" }],
    });
    expect(newest.ids).toEqual([...matching].reverse());

    const counted = await list({ pageSize: 7, filters, includeCount: true });
    expect(counted.body.totalCount).toBe(40);
    expect(counted.body.items.map((lead: Lead) => lead.id)).toEqual([...matching].reverse().slice(0, 7));
  });

  it("narrows by a createdAt range together with other filters", async () => {
    const from = leads[30]!.createdAt;
    const to = leads[90]!.createdAt;
    const expected = idsWhere(
      (lead) => lead.metadata.utmSource === "other" && lead.createdAt >= from && lead.createdAt < to,
    );
    const { ids } = await readPages(list, {
      pageSize: 9,
      filters: [{ field: "metadata.utmSource", value: "other" }],
      rangeFilters: [{ field: "createdAt", greaterThanOrEqual: from, lessThan: to }],
      orderBy: [{ field: "createdAt", direction: "asc" }],
    });
    expect(ids).toEqual(expected);
    expect(ids.length).toBeGreaterThan(30);
  });

  it("refuses a modified token, and a token of another query, with 400", async () => {
    const filters = [{ field: "vertical", value: "Common" }];
    const first = await list({ pageSize: 5, filters });
    const token = first.body.continuationToken as string;
    expect(token).toEqual(expect.any(String));
    expect((await list({ pageSize: 5, filters, continuationToken: token })).status).toBe(200);

    const [payload, signature] = token.split(".");
    const decoded = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
    // The organization's leads are write-sharded (issue 27): the cursor holds where each shard stands.
    const shards = decoded.c.scan.shards as unknown[];
    expect(shards.some((position) => typeof position === "object" && position !== null)).toBe(true);
    const moved = shards.map((position) =>
      typeof position === "object" && position !== null ? { ...position, sk: "LEAD#0", gsi8sk: "LEAD#0" } : position,
    );
    const forged = `${Buffer.from(JSON.stringify({ ...decoded, c: { scan: { shards: moved } } })).toString("base64url")}.${signature}`;
    for (const body of [
      { pageSize: 5, filters, continuationToken: forged },
      { pageSize: 5, filters: [{ field: "vertical", value: "Rare" }], continuationToken: token },
      { pageSize: 5, filters, orderBy: [{ field: "createdAt", direction: "asc" }], continuationToken: token },
    ]) {
      const response = await list(body);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].pointer).toBe("/continuationToken");
    }
  });

  describe("with a small read budget per request", () => {
    let server: LocalHttpServer;
    const budget = 25;
    // A server of this worker's own, sharing the test stack's table, whose lists read at most `budget` items a request.
    const listBudgeted = (body: Record<string, unknown>) =>
      request("POST", `${server.url}/leads/all/my`, { body, token: org.ownerToken });

    beforeAll(async () => {
      applyStackEnv();
      process.env[environmentNames.listScanBudget] = String(budget);
      server = await startHttpServer({ port: 0 });
    });
    afterAll(async () => {
      await server.stop();
      delete process.env[environmentNames.listScanBudget];
    });

    it("answers short (even empty) pages with a token, and following the tokens still yields every match once", async () => {
      const matching = idsWhere((lead) => lead.metadata.vertical === "Rare");
      for (const direction of ["asc", "desc"] as const) {
        const { pages, ids } = await readPages(listBudgeted, {
          pageSize: 2,
          filters: [{ field: "vertical", value: "Rare" }],
          orderBy: [{ field: "createdAt", direction }],
        });
        expect(ids).toEqual(direction === "asc" ? matching : [...matching].reverse());
        // Each request reads at most `budget` leads, so 120 leads take at least 120 / 25 requests.
        expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(leadCount / budget));
        expect(pages.some((page) => page.items.length === 0 && page.continuationToken !== null)).toBe(true);
      }
    });

    it("sorts by name from its index at any size, and answers 400 at /orderBy for an order it would have to sort in memory past the budget", async () => {
      const byName = await readPages(listBudgeted, { pageSize: 10, orderBy: [{ field: "name", direction: "desc" }] });
      const expected = [...leads].sort((a, b) =>
        a.contact.firstName < b.contact.firstName
          ? 1
          : a.contact.firstName > b.contact.firstName
            ? -1
            : a.id < b.id
              ? 1
              : -1,
      );
      expect(byName.ids).toEqual(expected.map((lead) => lead.id));

      const unindexed = await listBudgeted({
        pageSize: 10,
        orderBy: [
          { field: "price", direction: "asc" },
          { field: "name", direction: "asc" },
        ],
      });
      expect(unindexed.status).toBe(400);
      expect(unindexed.body.errors[0].pointer).toBe("/orderBy");
      expect(unindexed.body.errors[0].detail).toContain(`at most ${budget} items`);
    });

    it("counts within the budget: a lower bound flagged totalCountCapped", async () => {
      const counted = await listBudgeted({ pageSize: 5, includeCount: true });
      expect(counted.body).toMatchObject({ totalCount: budget, totalCountCapped: true });
    });

    it("pages a denser filter exactly once across budget-cut pages", async () => {
      const matching = idsWhere((lead) => lead.metadata.utmSource === "scan-match");
      const { pages, ids } = await readPages(listBudgeted, {
        pageSize: 10,
        filters: [{ field: "metadata.utmSource", value: "scan-match" }],
      });
      expect(ids).toEqual([...matching].reverse());
      expect(pages.some((page) => page.items.length < 10 && page.continuationToken !== null)).toBe(true);
    });
  });
});
