import { useEffect, useRef, useState } from "preact/hooks";
import { api, problemText } from "../../api/client";
import type { paths } from "../../api/schema";
import { NoteBox } from "../../NoteBox";
import { leadNames, ReplyBox, type Conversation } from "../Conversations";
import { CallButton } from "./CallButton";
import { CannedRepliesPanel, useCannedReplies } from "./CannedReplies";
import { useLiveReload } from "./live";
import { useMe } from "./me";
import { assigneeName, useTeam, type User } from "./team";

type Message = paths["/messages/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
type Call = paths["/calls/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
type EventRecord = NonNullable<
  paths["/events/all/my"]["post"]["responses"]["200"]["content"]["application/json"]
>["items"][number];

const finalMessageStatuses = ["Delivered", "Undelivered", "Failed", "Blocked", "Canceled", "Received"];
const finalCallStatuses = ["Completed", "Busy", "NoAnswer", "Failed", "Canceled"];

/** A message as its newest event tells it (spec 2.5 records carry the text, media, direction and status). */
interface MessageRow {
  id: string;
  direction: string;
  body: string;
  media: NonNullable<EventRecord["media"]>;
  status: string;
  statusReason: string | null;
  createdAt: string;
}

/** One row of the thread, in time order: a message, a call, an internal note, or an assignment. */
type Entry =
  | { kind: "message"; at: string; message: MessageRow }
  | { kind: "call"; at: string; call: Call }
  | { kind: "note"; at: string; event: EventRecord }
  | { kind: "assignment"; at: string; event: EventRecord };

/** A message or call still on its way. */
const moving = (entry: Entry) =>
  (entry.kind === "message" && !finalMessageStatuses.includes(entry.message.status)) ||
  (entry.kind === "call" && !finalCallStatuses.includes(entry.call.status));

/** An event's `summary` holds the first 160 characters of a message's text: a longer text is read from the message. */
const SUMMARY_LENGTH = 160;

/**
 * The conversation's timeline from its newest 200 events, in one request: a conversation with a lead reads the lead's
 * events (an index) narrowed to this conversation, one without reads the organization's events narrowed to it.
 * Messages are built from their events (the newest one's status); only a text longer than an event's summary and
 * each call (its length and recording) are read on their own, and a final call or a long text only once (`known`).
 */
async function loadTimeline(conversation: Conversation, known: Map<string, Message | Call>): Promise<Entry[]> {
  const { data } = await api.POST("/events/all/my", {
    params: {
      query: {
        conversationId: conversation.id,
        ...(conversation.leadId ? { leadId: conversation.leadId } : {}),
      },
    },
    body: { pageSize: 200 },
  });
  const events = [...(data?.items ?? [])].reverse(); // oldest first
  const messages = new Map<string, MessageRow>();
  const calls = new Set<string>();
  const rows: Entry[] = [];
  for (const event of events) {
    const id = event.relatedEntityId;
    if (event.relatedEntityType === "Message" && id) {
      const seen = messages.get(id);
      messages.set(id, {
        id,
        direction: event.direction ?? seen?.direction ?? "Outbound",
        body: event.summary ?? seen?.body ?? "",
        media: event.media ?? seen?.media ?? [],
        status: event.status ?? seen?.status ?? "",
        statusReason: event.statusReason ?? null,
        createdAt: seen?.createdAt ?? event.createdAt,
      });
    } else if (event.relatedEntityType === "Call" && id) calls.add(id);
    else if (event.eventType === "ConversationNoteAdded") rows.push({ kind: "note", at: event.createdAt, event });
    else if (event.eventType === "ConversationAssigned" || event.eventType === "ConversationUnassigned")
      rows.push({ kind: "assignment", at: event.createdAt, event });
  }
  const longTexts = [...messages.values()].filter((message) => message.body.length >= SUMMARY_LENGTH);
  await Promise.all([
    ...longTexts.map(async (message) => {
      const full =
        (known.get(message.id) as Message | undefined) ??
        (await api.GET("/messages/{id}", { params: { path: { id: message.id } } })).data;
      if (full) known.set(message.id, full);
      message.body = full?.body ?? message.body;
    }),
    ...[...calls].map(async (id) => {
      const before = known.get(id) as Call | undefined;
      const call =
        before && finalCallStatuses.includes(before.status)
          ? before
          : (await api.GET("/calls/{id}", { params: { path: { id } } })).data;
      if (!call) return;
      known.set(id, call);
      rows.push({ kind: "call", at: call.createdAt, call });
    }),
  ]);
  for (const message of messages.values()) rows.push({ kind: "message", at: message.createdAt, message });
  return rows.sort((a, b) => a.at.localeCompare(b.at));
}

const seconds = (total: number) =>
  total >= 60 ? `${Math.floor(total / 60)} min ${String(total % 60).padStart(2, "0")} s` : `${total} s`;

/** A call in words: missed, answered and for how long, or how it ended. */
function callSummary(call: Call): string {
  const way = call.direction === "Inbound" ? "Incoming call" : "Outgoing call";
  if (call.missed) return "Missed call";
  if (!finalCallStatuses.includes(call.status))
    return `${way}: ${call.status === "InProgress" ? "on the line" : "ringing"}`;
  if (call.answeredAt) return `${way}, answered · ${seconds(call.duration ?? 0)}`;
  const ended: Record<string, string> = { Busy: "busy", NoAnswer: "no answer", Failed: "failed", Canceled: "canceled" };
  return `${way}: ${ended[call.status] ?? call.status}`;
}

const time = (at: string) => <time dateTime={at}>{new Date(at).toLocaleString()}</time>;

function TimelineRow({ entry }: { entry: Entry }) {
  if (entry.kind === "message") {
    const { message } = entry;
    return (
      <li class={message.direction === "Inbound" ? "inbound" : "outbound"} data-message-id={message.id}>
        {message.body && <p>{message.body}</p>}
        {message.media.map((media) => (
          <p class="media">
            <a href={media.url} target="_blank" rel="noreferrer">
              {media.fileName ?? `Attachment (${media.contentType})`}
            </a>
          </p>
        ))}
        <small>
          {time(message.createdAt)} ·{" "}
          <span class="status" data-testid="message-status">
            {message.status}
          </span>
          {message.statusReason && ` (${message.statusReason})`}
        </small>
      </li>
    );
  }
  if (entry.kind === "call") {
    const { call } = entry;
    const { missed } = call;
    return (
      <li
        class={`call ${call.direction === "Inbound" ? "inbound" : "outbound"}${missed ? " missed" : ""}`}
        data-call-id={call.id}
      >
        <p data-testid="call-summary">{callSummary(call)}</p>
        {call.recordingUrl && (
          <p>
            <a href={call.recordingUrl} target="_blank" rel="noreferrer">
              Listen to the recording
            </a>
          </p>
        )}
        <small>{time(call.createdAt)}</small>
      </li>
    );
  }
  if (entry.kind === "note")
    return (
      <li class="note" data-note-id={entry.event.id}>
        <p>{entry.event.summary}</p>
        <small>
          Internal note by {entry.event.actorDisplayName ?? "someone"} · {time(entry.at)}
        </small>
      </li>
    );
  return (
    <li class="system" data-event-id={entry.event.id}>
      <small>
        {entry.event.description} · {time(entry.at)}
      </small>
    </li>
  );
}

/** Who works the conversation: a menu of the organization's active people; a change is saved at once. */
function AssigneePicker(props: {
  conversation: Conversation;
  team: User[] | null;
  onChange: (conversation: Conversation) => void;
}) {
  const { conversation, team, onChange } = props;
  const [answer, setAnswer] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const active = (team ?? []).filter((user) => user.status === "Active");
  return (
    <div class="assign">
      <label>
        Assigned to
        <select
          value={conversation.assignedUserId ?? ""}
          disabled={busy || team === null}
          onChange={async (event) => {
            const userId = event.currentTarget.value || null;
            setBusy(true);
            const { data, error } = await api.PUT("/conversations/{id}/assignee", {
              params: { path: { id: conversation.id } },
              body: { userId },
            });
            setBusy(false);
            if (!data) return setAnswer(problemText(error));
            setAnswer(null);
            onChange(data);
          }}
        >
          <option value="">Unassigned</option>
          {active.map((user) => (
            <option value={user.id}>{user.name}</option>
          ))}
          {conversation.assignedUserId && !active.some((user) => user.id === conversation.assignedUserId) && (
            <option value={conversation.assignedUserId}>{assigneeName(team, conversation.assignedUserId)}</option>
          )}
        </select>
      </label>
      {answer && (
        <p role="alert" class="error">
          {answer}
        </p>
      )}
    </div>
  );
}

/**
 * One conversation: messages, calls, internal notes and assignments in one timeline, kept fresh while it is open
 * (and marked read whenever something new arrives while it shows); assign it, call the contact through your own
 * phone, reply with text, a picture or a canned reply, or leave a note for the team.
 */
export function Thread({ id }: { id: string }) {
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const [leadName, setLeadName] = useState<string | null>(null);
  const [entries, setEntries] = useState<Entry[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);
  const [mode, setMode] = useState<"reply" | "note">("reply");
  const known = useRef(new Map<string, Message | Call>());
  const team = useTeam();
  const me = useMe();
  const canned = useCannedReplies();
  const reload = () => setRefresh((count) => count + 1);

  useEffect(() => {
    known.current = new Map();
    void api.GET("/conversations/{id}", { params: { path: { id } } }).then(async ({ data, error: problem }) => {
      if (!data) return setError(problemText(problem));
      setConversation(data);
      setLeadName(data.leadName ?? (data.leadId ? ((await leadNames([data]))[data.id] ?? null) : null));
      if (data.unreadCount > 0) void api.POST("/conversations/{id}/read", { params: { path: { id } } });
    });
  }, [id]);

  useEffect(() => {
    if (!conversation || conversation.id !== id) return;
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    void loadTimeline(conversation, known.current).then((loaded) => {
      if (!current) return;
      setEntries(loaded);
      // A message or call on its way is read again soon; the live check covers everything else.
      if (loaded.some(moving)) timer = setTimeout(() => current && reload(), 2000);
    });
    return () => {
      current = false;
      clearTimeout(timer);
    };
    // A new lead on the conversation changes where its events are read from; other changes come through `refresh`.
  }, [id, conversation?.id, conversation?.leadId, refresh]);

  // The change check: this conversation's item (one read). Something new while it shows is read at once.
  useLiveReload(
    async () => {
      const { data } = await api.GET("/conversations/{id}", { params: { path: { id } } });
      if (!data) return undefined;
      setConversation(data);
      if (data.unreadCount > 0) void api.POST("/conversations/{id}/read", { params: { path: { id } } });
      return `${data.modifiedAt ?? ""}|${data.lastMessageAt ?? ""}`;
    },
    reload,
    id,
  );

  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!conversation) return <p role="status">Loading…</p>;
  const target = conversation.leadId ? { leadId: conversation.leadId } : { to: conversation.contactPhoneNumber };
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
      <div class="thread-actions">
        <AssigneePicker
          conversation={conversation}
          team={team}
          onChange={(changed) => (setConversation(changed), reload())}
        />
        <CallButton
          target={target}
          fromPhoneNumberId={conversation.phoneNumberId}
          me={me}
          who={leadName ?? conversation.contactPhoneNumber}
          onPlaced={reload}
        />
      </div>
      <ol class="thread" aria-label="Messages, calls and notes" data-testid="thread">
        {entries.map((entry) => (
          <TimelineRow entry={entry} />
        ))}
      </ol>
      <fieldset class="mode">
        <legend>Write</legend>
        <label>
          <input type="radio" name="mode" checked={mode === "reply"} onChange={() => setMode("reply")} />
          Reply to the contact
        </label>
        <label>
          <input type="radio" name="mode" checked={mode === "note"} onChange={() => setMode("note")} />
          Internal note
        </label>
      </fieldset>
      {mode === "reply" ? (
        <ReplyBox
          target={target}
          fromPhoneNumberId={conversation.phoneNumberId}
          withMedia
          cannedReplies={canned.items}
          onSent={reload}
        />
      ) : (
        <NoteBox
          save={async (body) => {
            const { data, error } = await api.POST("/conversations/{id}/notes", {
              params: { path: { id: conversation.id } },
              body: { body },
            });
            return data ? null : problemText(error);
          }}
          onAdded={reload}
        />
      )}
      <CannedRepliesPanel canned={canned} />
    </>
  );
}
