import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { fullName } from "../names";
import { Pager } from "../Pager";

type Conversation = paths["/conversations/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
type Message = paths["/messages/{id}"]["get"]["responses"]["200"]["content"]["application/json"];

const finalStatuses = ["Delivered", "Undelivered", "Failed", "Blocked", "Canceled", "Received"];

type ConversationQuery = NonNullable<
  paths["/conversations/all/my"]["post"]["requestBody"]
>["content"]["application/json"];

/** A query that is a phone number ("+1 (201) 555", "2015550") searches numbers; anything with letters searches names. */
const looksLikeNumber = (text: string) => /^[\d\s()+.-]+$/.test(text);

/**
 * The conversation query for the inbox's filter and search: numbers are searched on the conversation itself, names
 * through the leads (the conversation only carries the lead's id), so a name search first asks which leads match.
 * Answers null when no lead has that name (nothing to ask the conversations for).
 */
async function inboxQuery(show: "all" | "unread", search: string): Promise<ConversationQuery["filters"] | null> {
  const filters: NonNullable<ConversationQuery["filters"]> =
    show === "unread" ? [{ field: "unread", value: true }] : [];
  const text = search.trim();
  if (!text || looksLikeNumber(text)) return filters;
  const { data } = await api.POST("/leads/all/my", { body: { pageSize: 100, search: text, searchFields: ["name"] } });
  const leadIds = (data?.items ?? []).map((lead) => lead.id);
  return leadIds.length ? [...filters, { field: "leadId", value: leadIds }] : null;
}

/**
 * The inbox: conversations newest activity first, each with the lead's name, the last message and its unread count;
 * "Show" narrows to unread ones, search finds a name or a number. Paged by the API's continuation tokens.
 */
export function Conversations() {
  const [show, setShow] = useState<"all" | "unread">("all");
  const [search, setSearch] = useState("");
  const [tokens, setTokens] = useState<(string | null)[]>([null]);
  const [loaded, setLoaded] = useState<{
    items: Conversation[];
    names: Record<string, string>;
    next: string | null;
  } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const token = tokens[tokens.length - 1] ?? null;

  useEffect(() => {
    let current = true;
    // Typing settles before the inbox asks (one query per pause, not per key).
    const timer = setTimeout(
      async () => {
        const filters = await inboxQuery(show, search);
        if (!current) return;
        if (filters === null) return setLoaded({ items: [], names: {}, next: null });
        const text = search.trim();
        const { data, error: problem } = await api.POST("/conversations/all/my", {
          body: {
            pageSize: 50,
            continuationToken: token,
            orderBy: [{ field: "lastMessageAt", direction: "desc" }],
            filters,
            ...(text && looksLikeNumber(text)
              ? { search: text.replace(/[^\d+]/g, ""), searchFields: ["contactPhoneNumber"] }
              : {}),
          },
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
  }, [show, search, token]);

  return (
    <>
      <h1>Conversations</h1>
      <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          Show
          <select
            value={show}
            onChange={(event) => (setShow(event.currentTarget.value as "all" | "unread"), setTokens([null]))}
          >
            <option value="all">All</option>
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
        <p role="status">{search || show === "unread" ? "No conversation matches." : "No conversations yet."}</p>
      )}
      {loaded && loaded.items.length > 0 && (
        <ul class="inbox" data-testid="inbox">
          {loaded.items.map((conversation) => {
            const name = loaded.names[conversation.id];
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
                  <time dateTime={conversation.lastMessageAt ?? undefined}>
                    {conversation.lastMessageAt ? new Date(conversation.lastMessageAt).toLocaleString() : ""}
                  </time>
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

/**
 * One conversation: its messages (from the conversation's events, each message read once)
 * with their delivery status, kept fresh while any is still on its way, and a reply box.
 */
export function Thread({ id }: { id: string }) {
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const [leadName, setLeadName] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);

  useEffect(() => {
    void api.GET("/conversations/{id}", { params: { path: { id } } }).then(async ({ data, error: problem }) => {
      if (!data) return setError(problemText(problem));
      setConversation(data);
      if (data.leadId) setLeadName((await leadNames([data]))[data.id] ?? null);
    });
    void api.POST("/conversations/{id}/read", { params: { path: { id } } });
  }, [id]);

  useEffect(() => {
    let current = true;
    void loadMessages(id).then((loaded) => {
      if (!current) return;
      setMessages(loaded);
      if (loaded.some((message) => !finalStatuses.includes(message.status)))
        setTimeout(() => current && setRefresh((count) => count + 1), 1000);
    });
    return () => void (current = false);
  }, [id, refresh]);

  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!conversation) return <p role="status">Loading…</p>;
  return (
    <>
      <p>
        <a href="#/conversations">← Inbox</a>
      </p>
      <h1>{leadName ?? conversation.contactPhoneNumber}</h1>
      <p class="hint">
        {leadName && `${conversation.contactPhoneNumber} · `}
        To {conversation.phoneNumber ?? "—"}
        {conversation.leadId && (
          <>
            {" · "}
            <a href={`#/leads/${encodeURIComponent(conversation.leadId)}`}>Lead</a>
          </>
        )}
      </p>
      <ol class="thread" aria-label="Messages">
        {messages.map((message) => (
          <li class={message.direction === "Inbound" ? "inbound" : "outbound"} data-message-id={message.id}>
            <p>{message.body}</p>
            <small>
              <time dateTime={message.createdAt}>{new Date(message.createdAt).toLocaleString()}</time> ·{" "}
              <span class="status" data-testid="message-status">
                {message.status}
              </span>
              {message.statusReason && ` (${message.statusReason})`}
            </small>
          </li>
        ))}
      </ol>
      <ReplyBox
        target={conversation.leadId ? { leadId: conversation.leadId } : { to: conversation.contactPhoneNumber }}
        fromPhoneNumberId={conversation.phoneNumberId}
        onSent={() => setRefresh((count) => count + 1)}
      />
    </>
  );
}

async function loadMessages(conversationId: string): Promise<Message[]> {
  const { data } = await api.POST("/events/all/my", {
    body: {
      pageSize: 200,
      filters: [{ field: "conversationId", value: conversationId }],
      orderBy: [{ field: "createdAt", direction: "asc" }],
    },
  });
  const ids = [
    ...new Set(
      (data?.items ?? [])
        .filter((event) => event.relatedEntityType === "Message" && event.relatedEntityId)
        .map((event) => event.relatedEntityId!),
    ),
  ];
  const messages = await Promise.all(
    ids.map(async (messageId) => (await api.GET("/messages/{id}", { params: { path: { id: messageId } } })).data),
  );
  return messages
    .filter((message): message is Message => message !== undefined)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** Sends through POST /messages and shows the API's answer as it is: scheduled for quiet hours, blocked by an opt-out, or a problem. */
export function ReplyBox(props: {
  target: { leadId: string } | { to: string };
  fromPhoneNumberId?: string | null;
  label?: string;
  onSent: () => void;
}) {
  const { target, fromPhoneNumberId, label = "Reply", onSent } = props;
  const [body, setBody] = useState("");
  const [answer, setAnswer] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  return (
    <form
      class="reply"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!body.trim()) return;
        setSending(true);
        const { data, error } = await api.POST("/messages", {
          body: { ...target, body, ...(fromPhoneNumberId ? { fromPhoneNumberId } : {}) },
        });
        setSending(false);
        if (!data) return setAnswer(problemText(error));
        setBody("");
        setAnswer(
          data.status === "Scheduled"
            ? `Scheduled for ${data.scheduledFor ?? "later"}${data.scheduledReason ? ` (${data.scheduledReason})` : ""}.`
            : `Message ${data.status.toLowerCase()}${data.statusReason ? `: ${data.statusReason}` : ""}.`,
        );
        onSent();
      }}
    >
      <label for="reply">{label}</label>
      <textarea
        id="reply"
        rows={3}
        maxLength={1600}
        value={body}
        onInput={(event) => setBody(event.currentTarget.value)}
      />
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
 * The lead's name for each conversation that has one, by conversation id: one lead query for the whole page (the
 * conversation carries only the lead's id and number; the lead list filters by phone, an array meaning "any of").
 */
export async function leadNames(conversations: Conversation[]): Promise<Record<string, string>> {
  const linked = conversations.filter((conversation) => conversation.leadId);
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
