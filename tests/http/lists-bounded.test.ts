import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import { compareValues } from "#core/db/list";
import { readBudget } from "#core/db/query";
import { eventItem } from "#core/events/index";
import * as Leads from "#core/leads/index";
import { leadItem, type Lead } from "#core/leads/index";
import { startHttpServer, type LocalHttpServer } from "#local/http-server";
import { intakeByBody, newSource, uniquePhone, waitForLead, type TestSource } from "#tests/helpers/leads";
import { applyStackEnv, newOrganization, request, type TestOrganization } from "#tests/helpers/stack";
import { table } from "#stacks/definitions";

/**
 * Issue 14 §3 / issue 16: no list request reads more than a bounded number of
 * items, whatever the organization's size. 10,000 leads (and 5,000 events) are
 * stored straight through core with BatchWrite; each list shape is then asked
 * over HTTP of a server in this worker, whose DynamoDB client counts the items
 * every call read (Query ScannedCount, one per item a Get or BatchGet returned).
 * A query of a keys-only index reads key entries, not items (core/db then
 * fetches the items it keeps): those are counted apart, within the same budget.
 */

const leadCount = 10_000;
const eventCount = 5_000;
const pageSize = 50;
/** A page, and with includeCount a count, each within the read budget; a few more for the caller's own lookups (auth, rate limit). */
const pageBudget = readBudget(pageSize) + 10;
const countedBudget = 2 * readBudget(pageSize) + 10;

type PageBody<T> = {
  items: T[];
  pageSize: number;
  totalCount: number | null;
  totalCountCapped?: boolean;
  continuationToken: string | null;
};

let itemsRead = 0;
let keyEntriesRead = 0;
const keysOnlyIndexes = new Set(
  Object.entries(table.globalIndexes)
    .filter(([, index]) => index.projection === "KEYS_ONLY")
    .map(([name]) => name),
);

/** Counts the items each DynamoDB call of this process reads (a minimal hook; h16-bench's middleware does it for the benches). */
function countItemsRead(): void {
  db().middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const output = result.output as {
        ScannedCount?: number;
        Count?: number;
        Item?: unknown;
        Responses?: Record<string, unknown[]>;
      };
      const indexName = (args.input as { IndexName?: string }).IndexName;
      if (typeof output.ScannedCount === "number" && indexName && keysOnlyIndexes.has(indexName))
        keyEntriesRead += output.ScannedCount;
      else if (typeof output.ScannedCount === "number") itemsRead += output.ScannedCount;
      else if (output.Item) itemsRead += 1;
      else if (output.Responses)
        itemsRead += Object.values(output.Responses).reduce((sum, items) => sum + items.length, 0);
      return result;
    },
    { step: "initialize", name: "countItemsReadForTests" },
  );
}

async function batchPut(items: Record<string, unknown>[]): Promise<void> {
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < items.length; start += 25) chunks.push(items.slice(start, start + 25));
  const write = async (chunk: Record<string, unknown>[]) => {
    let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
    while (requests.length) {
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  };
  for (let start = 0; start < chunks.length; start += 8) await Promise.all(chunks.slice(start, start + 8).map(write));
}

describe("list requests at 10,000 leads read a bounded number of items", () => {
  let org: TestOrganization;
  let server: LocalHttpServer;
  let sources: TestSource[];
  const leads: Lead[] = [];
  const rareUtm = new Set([7, 2507, 5007, 9907]);
  const needle = new Set([3, 1003, 4003, 8003]);

  /** One list request; returns its answer and the items it read. */
  async function list<T = Lead>(
    path: string,
    body: Record<string, unknown>,
  ): Promise<{ status: number; body: PageBody<T> & { errors?: { pointer: string }[] }; read: number }> {
    itemsRead = 0;
    keyEntriesRead = 0;
    const response = await request("POST", `${server.url}${path}`, {
      body: { pageSize, ...body },
      token: org.ownerToken,
    });
    expect(keyEntriesRead).toBeLessThanOrEqual(body.includeCount ? countedBudget : pageBudget);
    return { status: response.status, body: response.body, read: itemsRead };
  }

  /** Follows the tokens to the end; each request within the page budget. Returns every id in order. */
  async function readAll(path: string, body: Record<string, unknown>): Promise<{ ids: string[]; requests: number }> {
    const ids: string[] = [];
    let token: string | null = null;
    let requests = 0;
    do {
      const page: { status: number; body: PageBody<{ id: string }>; read: number } = await list<{ id: string }>(path, {
        ...body,
        continuationToken: token,
      });
      expect(page.status).toBe(200);
      expect(page.read).toBeLessThanOrEqual(pageBudget);
      ids.push(...page.body.items.map((item: { id: string }) => item.id));
      token = page.body.continuationToken;
      requests++;
    } while (token && requests < 200);
    expect(token).toBeNull();
    return { ids, requests };
  }

  beforeAll(async () => {
    applyStackEnv();
    org = await newOrganization();
    sources = [await newSource(org), await newSource(org)];
    const first = await intakeByBody(sources[0]!, {
      FirstName: "Template",
      Phone: uniquePhone(),
      Email: `template-${Date.now()}@example.com`,
    });
    await waitForLead(org, first.body.id);
    const template = (await Leads.find(org.organizationId, first.body.id))!;
    const start = Date.now() - leadCount * 1000 - 60_000;
    for (let index = 0; index < leadCount; index++) {
      const createdMs = start + index * 1000;
      const createdAt = new Date(createdMs).toISOString();
      leads.push({
        ...template,
        id: ulid(createdMs),
        createdAt,
        modifiedAt: index % 3 === 0 ? new Date(createdMs + ((index * 7919) % 5000) * 1000).toISOString() : null,
        sourceId: sources[index % 2]!.sourceId,
        processingStatus: index % 10 === 0 ? "Rejected" : "Processed",
        metadata: {
          ...template.metadata,
          createdAt,
          utmSource: rareUtm.has(index) ? "rare-utm" : "common-utm",
          price:
            index % 50 === 0 ? null : index % 333 === 0 ? `-${index % 7}.5` : `${(index * 37) % 500}.${index % 100}`,
        },
        contact: {
          ...template.contact,
          firstName: `N${(index * 7919) % 10_000}`,
          lastName: needle.has(index) ? "Needleman" : "Bulk",
          email: `bulk-${index}@example.com`,
          phone: null,
        },
      });
    }
    await batchPut(leads.map((lead) => leadItem(org.organizationId, lead)));
    const eventStart = Date.now() - eventCount * 1000;
    await batchPut(
      Array.from(
        { length: eventCount },
        (_, index) =>
          eventItem(org.organizationId, {
            eventType: index % 1000 === 1 ? "WebhookEndpointDisabled" : "MessageQueued",
            eventCategory: "Bulk",
            createdAt: new Date(eventStart + index * 1000).toISOString(),
          }).item,
      ),
    );
    leads.push(template);
    server = await startHttpServer({ port: 0 });
    countItemsRead();
  }, 600_000);

  afterAll(async () => {
    await server?.stop();
    db().middlewareStack.remove("countItemsReadForTests");
  });

  /** The expected order of a sort, as the list comparator defines it (missing first, id breaking ties). */
  const sorted = (field: "name" | "price" | "modifiedAt", direction: "asc" | "desc") => {
    const value = (lead: Lead) =>
      field === "name"
        ? [lead.contact.firstName, lead.contact.lastName].filter(Boolean).join(" ")
        : field === "price"
          ? lead.metadata.price
          : lead.modifiedAt;
    const kind = field === "price" ? "decimal" : field === "name" ? "string" : "date";
    const ordered = [...leads].sort((a, b) => compareValues(kind, value(a), value(b)) || (a.id < b.id ? -1 : 1));
    return (direction === "asc" ? ordered : ordered.reverse()).map((lead) => lead.id);
  };

  it("sorts by name, price and modifiedAt from indexes: each page exact and within the budget", async () => {
    for (const field of ["name", "price", "modifiedAt"] as const) {
      for (const direction of ["asc", "desc"] as const) {
        const expected = sorted(field, direction);
        const first = await list("/leads/all/my", { orderBy: [{ field, direction }] });
        expect(first.status).toBe(200);
        expect(first.read).toBeLessThanOrEqual(pageBudget);
        // The hook sees this process's reads: a page of 50 reads at least its 50 items.
        expect(first.read).toBeGreaterThan(pageSize);
        expect(first.body.items.map((lead) => lead.id)).toEqual(expected.slice(0, pageSize));
        const second = await list("/leads/all/my", {
          orderBy: [{ field, direction }],
          continuationToken: first.body.continuationToken,
        });
        expect(second.read).toBeLessThanOrEqual(pageBudget);
        expect(second.body.items.map((lead) => lead.id)).toEqual(expected.slice(pageSize, 2 * pageSize));
      }
    }
  });

  it("lists newest first and one processing status or source from indexes within the budget", async () => {
    const newest = await list("/leads/all/my", {});
    expect(newest.read).toBeLessThanOrEqual(pageBudget);
    expect(newest.body.items.map((lead) => lead.id)).toEqual(
      [...leads]
        .sort((a, b) => (a.id < b.id ? 1 : -1))
        .slice(0, pageSize)
        .map((lead) => lead.id),
    );

    const rejected = leads
      .filter((lead) => lead.processingStatus === "Rejected")
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const byStatus = await list("/leads/all/my", {
      filters: [{ field: "processingStatus", value: "rejected" }],
      orderBy: [{ field: "createdAt", direction: "asc" }],
    });
    expect(byStatus.read).toBeLessThanOrEqual(pageBudget);
    expect(byStatus.body.items.map((lead) => lead.id)).toEqual(rejected.slice(0, pageSize).map((lead) => lead.id));

    const bySource = await list("/leads/all/my", { filters: [{ field: "sourceId", value: sources[1]!.sourceId }] });
    expect(bySource.read).toBeLessThanOrEqual(pageBudget);
    expect(bySource.body.items.every((lead) => lead.sourceId === sources[1]!.sourceId)).toBe(true);
    expect(bySource.body.items).toHaveLength(pageSize);
  });

  // Each request reads up to its budget over thousands of leads: 43-49 s in a full run, too close to the default minute.
  it(
    "pages a rare non-indexed filter and a search in partial pages, each request within the budget, every match once",
    { timeout: 150_000 },
    async () => {
      const rare = await readAll("/leads/all/my", { filters: [{ field: "metadata.utmSource", value: "rare-utm" }] });
      expect(rare.ids).toEqual(
        leads
          .filter((lead) => lead.metadata.utmSource === "rare-utm")
          .map((lead) => lead.id)
          .sort()
          .reverse(),
      );
      // 10,000 leads at most readBudget a request: the scan takes many requests, most with empty pages and a token.
      expect(rare.requests).toBeGreaterThanOrEqual(Math.floor(leadCount / readBudget(pageSize)));

      const found = await readAll("/leads/all/my", {
        search: "needleman",
        searchFields: ["name"],
        orderBy: [{ field: "createdAt", direction: "asc" }],
      });
      expect(found.ids).toEqual(
        leads
          .filter((lead) => lead.contact.lastName === "Needleman")
          .map((lead) => lead.id)
          .sort(),
      );

      const ranged = await readAll("/leads/all/my", {
        filters: [{ field: "metadata.utmSource", value: "rare-utm" }],
        orderBy: [{ field: "price", direction: "desc" }],
      });
      expect(ranged.ids).toEqual(
        sorted("price", "desc").filter((id) => leads.find((lead) => lead.id === id)!.metadata.utmSource === "rare-utm"),
      );
    },
  );

  it("counts within the budget: exact when the list fits, a flagged lower bound otherwise", async () => {
    const all = await list("/leads/all/my", { includeCount: true });
    expect(all.read).toBeLessThanOrEqual(countedBudget);
    expect(all.body).toMatchObject({ totalCount: readBudget(pageSize), totalCountCapped: true });

    const rare = await list("/leads/all/my", {
      filters: [{ field: "metadata.utmSource", value: "rare-utm" }],
      includeCount: true,
    });
    expect(rare.read).toBeLessThanOrEqual(countedBudget);
    expect(rare.body.totalCountCapped).toBe(true);
    expect(rare.body.totalCount).toBeLessThanOrEqual(rareUtm.size);

    const sources = await list("/sources/all/my", { includeCount: true });
    expect(sources.body).toMatchObject({ totalCount: 2, totalCountCapped: false });
  });

  it("lists events of one type from their index within the budget", async () => {
    const rareEvents = await readAll("/events/all/my", {
      filters: [{ field: "eventType", value: "webhookendpointdisabled" }],
    });
    expect(rareEvents.ids).toHaveLength(eventCount / 1000);
    const byParameter = await list<{ id: string; eventType: string }>(
      "/events/all/my?eventType=WebhookEndpointDisabled",
      {},
    );
    expect(byParameter.read).toBeLessThanOrEqual(pageBudget);
    expect(byParameter.body.items.map((event) => event.id)).toEqual(rareEvents.ids);
    expect(byParameter.body.continuationToken).toBeNull();
  });
});
