import { performance } from "node:perf_hooks";
import { ulid } from "ulid";
import { call, warmAndMeasure, writeAll } from "#bench/cost";
import { percentile, printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";
import { ConversationEntity } from "#core/db/entities/messaging";
import { eventItem } from "#core/events/index";
import { handler as getConversation } from "#functions/conversations/get";
import { handler as listConversations } from "#functions/conversations/list";
import { handler as listEvents } from "#functions/events/list";
import { apiEvent } from "#tests/helpers/events";
import { chromium } from "playwright-core";
import { signUserToken } from "#core/auth/local-tokens";
import * as Users from "#core/users/index";

/** Conversations seeded (the "inbox opens under 1 s with 10,000 conversations"); `BENCH_INBOX_CONVERSATIONS`. */
const CONVERSATIONS = Number(process.env.BENCH_INBOX_CONVERSATIONS ?? 10_000);

/**
 * `npm run bench -- inbox` (issues 29, 28): what the dashboard's inbox costs per request and per open tab. Seeds
 * CONVERSATIONS conversations (one in ten assigned to one agent, one in five unread) and one thread of 40 messages of
 * 4 events each, then measures, warm, on the handlers: the inbox's change check (every 10 s per open inbox tab), a
 * page of the inbox (the reload after a change), the "mine" filter, the thread's check and its timeline; and times
 * the first page over HTTP (p50/p99 of 20).
 */
export async function inboxBench(context: BenchContext): Promise<void> {
  const organizationId = context.organizationId;
  const agent = "01BENCHAGENT0000000000000";
  const start = Date.now() - CONVERSATIONS * 60_000;
  const conversations = Array.from({ length: CONVERSATIONS }, (_, index) => {
    const id = ulid(start + index * 60_000);
    const at = new Date(start + index * 60_000).toISOString();
    const unread = index % 5 === 0;
    const record = {
      id,
      contactPhoneNumber: `+1201555${String(index).padStart(4, "0")}`,
      leadId: `lead-${index}`,
      leadName: `Lead ${index}`,
      phoneNumberId: null,
      phoneNumber: null,
      unread,
      unreadCount: unread ? 1 : 0,
      lastMessageAt: at,
      lastMessagePreview: `Message ${index}`,
      lastDirection: "Inbound",
      assignedUserId: index % 10 === 0 ? agent : null,
      assignedAt: null,
      assignedBy: null,
      createdAt: at,
      modifiedAt: at,
    };
    // The item as the Conversation entity stores it: its keys, its last-message entry and, when unread, its inbox entry.
    return {
      ...record,
      ...ConversationEntity.putAt({ organizationId, id }, record).Item,
      ...(unread ? ConversationEntity.entryIn("unread", { organizationId, id, lastMessageAt: at }) : {}),
    };
  });
  const thread = conversations.at(-1)!;
  const events = Array.from({ length: 160 }, (_, index) =>
    eventItem(organizationId, {
      eventType: (["MessageAccepted", "MessageQueued", "MessageSent", "MessageDelivered"] as const)[index % 4]!,
      eventCategory: "Sms",
      summary: "A text of the bench thread",
      leadId: thread.leadId,
      conversationId: thread.id,
      relatedEntityType: "Message",
      relatedEntityId: `message-${Math.floor(index / 4)}`,
      direction: "Outbound",
      createdAt: new Date(Date.now() - (160 - index) * 1000).toISOString(),
    }),
  ).map(({ item }) => item);
  const seeding = performance.now();
  await writeAll([...conversations, ...events]);
  console.log(`seeded ${CONVERSATIONS} conversations and 160 events in ${Math.round(performance.now() - seeding)} ms`);

  const auth = { authorization: `Bearer ${context.apiKey}` };
  const list = (body: Record<string, unknown>) => () =>
    call(
      listConversations,
      apiEvent({
        method: "POST",
        path: "/conversations/all/my",
        routeKey: "POST /conversations/all/my",
        headers: auth,
        body,
      }),
    );
  const rows = [
    await warmAndMeasure("inbox change check (pageSize 1)", "every 10 s per open inbox", list({ pageSize: 1 })),
    await warmAndMeasure(
      "inbox page (50, latest first)",
      "after a change, and once a minute",
      list({ pageSize: 50, orderBy: [{ field: "lastMessageAt", direction: "desc" }] }),
    ),
    await warmAndMeasure(
      "inbox unread (50)",
      "the Unread filter",
      list({ pageSize: 50, filters: [{ field: "unread", value: true }] }),
    ),
    await warmAndMeasure(
      "inbox mine (an agent's, 1 in 10)",
      "the Mine filter: a scan within the read budget",
      list({ pageSize: 50, filters: [{ field: "assignedUserId", value: agent }] }),
    ),
    await warmAndMeasure("thread change check (GET /conversations/{id})", "every 10 s per open thread", () =>
      call(
        getConversation,
        apiEvent({
          method: "GET",
          path: `/conversations/${thread.id}`,
          routeKey: "GET /conversations/{id}",
          pathParameters: { id: thread.id },
          headers: auth,
        }),
      ),
    ),
    await warmAndMeasure("thread timeline (lead's events, 200)", "on open, after a change, once a minute", () =>
      call(
        listEvents,
        apiEvent({
          method: "POST",
          path: "/events/all/my",
          routeKey: "POST /events/all/my",
          queryStringParameters: { leadId: thread.leadId, conversationId: thread.id },
          headers: auth,
          body: { pageSize: 200 },
        }),
      ),
    ),
  ];
  printTable(`Inbox requests at ${CONVERSATIONS} conversations (warm, per request)`, rows);

  const times: number[] = [];
  for (let run = 0; run < 20; run++) {
    const began = performance.now();
    const response = await fetch(`${context.baseUrl}/conversations/all/my`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ pageSize: 50 }),
    });
    await response.text();
    times.push(performance.now() - began);
  }
  printTable("First inbox page over HTTP on the local stack", [
    {
      conversations: CONVERSATIONS,
      "p50 ms": Math.round(percentile(times, 50)),
      "p99 ms": Math.round(percentile(times, 99)),
    },
  ]);

  await inboxInTheBrowser(context, CONVERSATIONS);
}

/**
 * The inbox opened in Chromium (Debian's, as the browser tests use): from a tab's navigation to /app/#/conversations
 * until its first row shows, signed in as the organization's owner as the sign-in flow leaves it. Each of the 10 runs
 * is a new browser context, so an empty cache: the dashboard's JavaScript is fetched every time, as on a first visit.
 * One navigation before them warms the browser itself (a user's browser is already running); it is not counted.
 */
async function inboxInTheBrowser(context: BenchContext, conversations: number): Promise<void> {
  const owner = await Users.add(context.organizationId, {
    email: `bench-${ulid()}@example.com`,
    name: "Bench Owner",
    role: "owner",
  });
  const token = await signUserToken(
    { organizationId: context.organizationId, userId: owner.id, role: "owner", name: owner.name, email: owner.email },
    { privateJwk: context.stack.secrets.privateJwk, issuer: context.stack.secrets.issuer },
  );
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
  const openInbox = async (): Promise<number> => {
    const tab = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    // A script, not a function: this project's types have no DOM.
    await tab.addInitScript({
      content: `sessionStorage.setItem("accessToken", ${JSON.stringify(token)}); sessionStorage.setItem("refreshToken", "established-by-the-bench");`,
    });
    const page = await tab.newPage();
    const began = performance.now();
    await page.goto(`${context.baseUrl}/app/#/conversations`);
    await page.locator("[data-conversation-id]").first().waitFor({ timeout: 30_000 });
    const took = performance.now() - began;
    await tab.close();
    return took;
  };
  try {
    const warmUp = await openInbox();
    const times: number[] = [];
    for (let run = 0; run < 10; run++) times.push(await openInbox());
    printTable("The inbox opened in Chromium, empty cache each time (navigation to its first row shown, 1440×900)", [
      {
        conversations,
        "browser warm-up (not counted) ms": Math.round(warmUp),
        "p50 ms": Math.round(percentile(times, 50)),
        "p99 ms": Math.round(percentile(times, 99)),
      },
    ]);
  } finally {
    await browser.close();
  }
}
