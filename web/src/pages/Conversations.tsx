import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { fullName } from "../names";
import { Pager } from "../Pager";
import type { CannedReply } from "./conversations/CannedReplies";
import { useLiveReload } from "./conversations/live";
import { useMe } from "./conversations/me";
import { assigneeName, useTeam } from "./conversations/team";
import "./conversations/conversations.css";

export { Thread } from "./conversations/Thread";

export type Conversation = paths["/conversations/{id}"]["get"]["responses"]["200"]["content"]["application/json"];

type ConversationQuery = NonNullable<
  paths["/conversations/all/my"]["post"]["requestBody"]
>["content"]["application/json"];

/** A query that is a phone number ("+1 (201) 555", "2015550") searches numbers; anything with letters searches names. */
const looksLikeNumber = (text: string) => /^[\d\s()+.-]+$/.test(text);

type Show = "all" | "mine" | "unassigned" | "unread";
const showFilters: Record<Show, NonNullable<ConversationQuery["filters"]>> = {
  all: [],
  mine: [{ field: "assignedUserId", value: "mine" }],
  unassigned: [{ field: "assignedUserId", value: "unassigned" }],
  unread: [{ field: "unread", value: true }],
};

/** The conversation query of the inbox's filter, search and page: names and numbers are searched by the API. */
function inboxQuery(show: Show, search: string, token: string | null): ConversationQuery {
  const text = search.trim();
  return {
    pageSize: 50,
    continuationToken: token,
    orderBy: [{ field: "lastMessageAt", direction: "desc" }],
    filters: showFilters[show],
    ...(!text
      ? {}
      : looksLikeNumber(text)
        ? { search: text.replace(/[^\d+]/g, ""), searchFields: ["contactPhoneNumber"] }
        : { search: text, searchFields: ["leadName"] }),
  };
}

/**
 * The inbox's cheap change check: the organization's most recently active conversation (one index key and one item
 * read). A new message anywhere, or a change to that conversation, changes it.
 */
async function newestActivity(): Promise<string | undefined> {
  const { data } = await api.POST("/conversations/all/my", { body: { pageSize: 1 } });
  const top = data?.items[0];
  return data ? `${top?.id ?? ""}|${top?.modifiedAt ?? ""}|${top?.unreadCount ?? 0}` : undefined;
}

/**
 * The inbox: conversations newest activity first, each with the lead's name, the last message, its unread count and
 * its assignee; "Show" narrows to mine, unassigned or unread ones, search finds a name or a number. Paged by the API's
 * continuation tokens, and kept fresh without a reload (useLiveReload).
 */
export function Conversations() {
  const [show, setShow] = useState<Show>("all");
  const [search, setSearch] = useState("");
  const [tokens, setTokens] = useState<(string | null)[]>([null]);
  const [refresh, setRefresh] = useState(0);
  const [loaded, setLoaded] = useState<{
    items: Conversation[];
    names: Record<string, string>;
    next: string | null;
  } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const team = useTeam();
  const me = useMe();
  const token = tokens[tokens.length - 1] ?? null;

  useEffect(() => {
    let current = true;
    // Typing settles before the inbox asks (one query per pause, not per key).
    const timer = setTimeout(
      async () => {
        const { data, error: problem } = await api.POST("/conversations/all/my", {
          body: inboxQuery(show, search, token),
        });
        if (!current) return;
        if (!data) return setError(problemText(problem));
        setError(null);
        setLoaded({ items: data.items, names: await leadNames(data.items), next: data.continuationToken });
      },
      search ? 300 : 0,
    );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [show, search, token, refresh]);

  useLiveReload(newestActivity, () => setRefresh((count) => count + 1), "inbox");

  return (
    <>
      <h1>Conversations</h1>
      <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          Show
          <select value={show} onChange={(event) => (setShow(event.currentTarget.value as Show), setTokens([null]))}>
            <option value="all">All</option>
            {me && <option value="mine">Mine</option>}
            <option value="unassigned">Unassigned</option>
            <option value="unread">Unread</option>
          </select>
        </label>
        <label>
          Search by name or number
          <input
            type="search"
            value={search}
            onInput={(event) => (setSearch(event.currentTarget.value), setTokens([null]))}
          />
        </label>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {loaded && loaded.items.length === 0 && (
        <p role="status">
          {search || show !== "all"
            ? loaded.next
              ? "No conversation matches on this page; try the next one."
              : "No conversation matches."
            : "No conversations yet."}
        </p>
      )}
      {loaded && loaded.items.length > 0 && (
        <ul class="inbox" data-testid="inbox">
          {loaded.items.map((conversation) => {
            const name = conversation.leadName ?? loaded.names[conversation.id];
            return (
              <li class={conversation.unreadCount ? "unread" : ""} data-conversation-id={conversation.id}>
                <a href={`#/conversations/${encodeURIComponent(conversation.id)}`}>
                  <span class="who">
                    <strong>{name ?? conversation.contactPhoneNumber}</strong>
                    {name && <small>{conversation.contactPhoneNumber}</small>}
                  </span>
                  {conversation.unreadCount > 0 ? (
                    <span class="badge unread-count">{conversation.unreadCount} unread</span>
                  ) : (
                    <span />
                  )}
                  <span class="preview">
                    {conversation.lastDirection === "Outbound" && "You: "}
                    {conversation.lastMessagePreview ?? ""}
                  </span>
                  <span class="meta">
                    <span class="assignee" data-testid="assignee">
                      {assigneeName(team, conversation.assignedUserId, me?.id)}
                    </span>
                    <time dateTime={conversation.lastMessageAt ?? undefined}>
                      {conversation.lastMessageAt ? new Date(conversation.lastMessageAt).toLocaleString() : ""}
                    </time>
                  </span>
                </a>
              </li>
            );
          })}
        </ul>
      )}
      {loaded && (tokens.length > 1 || loaded.next) && (
        <Pager label="Inbox pages" tokens={tokens} next={loaded.next} onChange={setTokens} />
      )}
    </>
  );
}

/** The media type of a picture address by its extension (what carriers accept for MMS), or undefined. */
function pictureType(url: string): string | undefined {
  const extension = /\.(jpe?g|png|gif)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  return extension ? `image/${extension === "jpg" ? "jpeg" : extension}` : undefined;
}

/**
 * Sends through POST /messages and shows the API's answer as it is: scheduled for quiet hours, blocked by an opt-out,
 * or a problem. In a thread it also takes a picture by its address (MMS: the message's `media`) and inserts canned replies.
 */
export function ReplyBox(props: {
  target: { leadId: string } | { to: string };
  fromPhoneNumberId?: string | null;
  label?: string;
  withMedia?: boolean;
  cannedReplies?: CannedReply[];
  onSent: () => void;
}) {
  const { target, fromPhoneNumberId, label = "Reply", withMedia = false, cannedReplies = [], onSent } = props;
  const [body, setBody] = useState("");
  const [picture, setPicture] = useState("");
  const [answer, setAnswer] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  return (
    <form
      class="reply"
      onSubmit={async (event) => {
        event.preventDefault();
        const url = picture.trim();
        if (!body.trim() && !url) return setAnswer("Write a message or add a picture.");
        const contentType = url ? pictureType(url) : undefined;
        if (url && !contentType) return setAnswer("The picture's address must end in .jpg, .png or .gif.");
        setSending(true);
        const { data, error } = await api.POST("/messages", {
          body: {
            ...target,
            ...(body.trim() ? { body } : {}),
            ...(url && contentType ? { media: [{ url, contentType }] } : {}),
            ...(fromPhoneNumberId ? { fromPhoneNumberId } : {}),
          },
        });
        setSending(false);
        if (!data) return setAnswer(problemText(error));
        setBody("");
        setPicture("");
        setAnswer(
          data.status === "Scheduled"
            ? `Scheduled for ${data.scheduledFor ?? "later"}${data.scheduledReason ? ` (${data.scheduledReason})` : ""}.`
            : `Message ${data.status.toLowerCase()}${data.statusReason ? `: ${data.statusReason}` : ""}.`,
        );
        onSent();
      }}
    >
      {cannedReplies.length > 0 && (
        <label>
          Insert a canned reply
          <select
            value=""
            onChange={(event) => {
              const reply = cannedReplies.find((canned) => canned.id === event.currentTarget.value);
              if (reply) setBody((current) => (current.trim() ? `${current.trimEnd()} ${reply.body}` : reply.body));
            }}
          >
            <option value="">Choose…</option>
            {cannedReplies.map((reply) => (
              <option value={reply.id}>{reply.name}</option>
            ))}
          </select>
        </label>
      )}
      <label for="reply">{label}</label>
      <textarea
        id="reply"
        rows={3}
        maxLength={1600}
        value={body}
        onInput={(event) => setBody(event.currentTarget.value)}
      />
      {withMedia && (
        <>
          <label for="picture">Picture address (sends an MMS; .jpg, .png or .gif)</label>
          <input
            id="picture"
            type="url"
            inputMode="url"
            placeholder="https://…"
            value={picture}
            onInput={(event) => setPicture(event.currentTarget.value)}
          />
        </>
      )}
      <button type="submit" disabled={sending}>
        Send
      </button>
      {answer && (
        <p role="status" class="hint" data-testid="send-answer">
          {answer}
        </p>
      )}
    </form>
  );
}

/**
 * The lead's name for each conversation that has a lead but no `leadName` (one stored before conversations carried
 * it), by conversation id: one lead query for the whole page (the lead list filters by phone, an array meaning "any of").
 */
export async function leadNames(conversations: Conversation[]): Promise<Record<string, string>> {
  const linked = conversations.filter((conversation) => conversation.leadId && !conversation.leadName);
  if (linked.length === 0) return {};
  const phones = [...new Set(linked.map((conversation) => conversation.contactPhoneNumber))];
  const { data } = await api.POST("/leads/all/my", {
    body: { pageSize: 100, filters: [{ field: "phone", value: phones }] },
  });
  const byId = new Map((data?.items ?? []).map((lead) => [lead.id, fullName(lead.contact)]));
  return Object.fromEntries(
    linked.flatMap((conversation) =>
      byId.get(conversation.leadId!) ? [[conversation.id, byId.get(conversation.leadId!)!]] : [],
    ),
  );
}
