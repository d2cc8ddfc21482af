import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../../api/client";
import type { paths } from "../../api/schema";

export type CannedReply = paths["/canned-replies"]["post"]["responses"]["201"]["content"]["application/json"];

/** The organization's canned replies (first 100, newest first) and a way to read them again after a change. */
export function useCannedReplies(): { items: CannedReply[]; reload: () => void } {
  const [items, setItems] = useState<CannedReply[]>([]);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    void api
      .POST("/canned-replies/all/my", { body: { pageSize: 100 } })
      .then(({ data }) => setItems(data?.items ?? []));
  }, [version]);
  return { items, reload: () => setVersion((count) => count + 1) };
}

/** Saves and deletes the organization's canned replies, under the reply box. */
export function CannedRepliesPanel({ canned }: { canned: { items: CannedReply[]; reload: () => void } }) {
  const [name, setName] = useState("");
  const [body, setBody] = useState("");
  const [answer, setAnswer] = useState<{ text: string; problem: boolean } | null>(null);
  return (
    <details class="canned">
      <summary>Canned replies ({canned.items.length})</summary>
      <ul>
        {canned.items.map((reply) => (
          <li data-canned-reply-id={reply.id}>
            <span>
              <strong>{reply.name}</strong> {reply.body}
            </span>
            <button
              type="button"
              class="secondary danger"
              aria-label={`Delete canned reply ${reply.name}`}
              onClick={async () => {
                const { error } = await api.DELETE("/canned-replies/{id}", { params: { path: { id: reply.id } } });
                setAnswer(
                  error
                    ? { text: problemText(error), problem: true }
                    : { text: `Deleted “${reply.name}”.`, problem: false },
                );
                canned.reload();
              }}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      <form
        class="reply"
        onSubmit={async (event) => {
          event.preventDefault();
          const { data, error } = await api.POST("/canned-replies", { body: { name, body } });
          if (!data) return setAnswer({ text: problemText(error), problem: true });
          setName("");
          setBody("");
          setAnswer({ text: `Saved “${data.name}” for everyone in your organization.`, problem: false });
          canned.reload();
        }}
      >
        <label for="canned-name">Name of a new canned reply</label>
        <input id="canned-name" value={name} maxLength={80} onInput={(event) => setName(event.currentTarget.value)} />
        <label for="canned-body">Its text</label>
        <textarea
          id="canned-body"
          rows={2}
          maxLength={1600}
          value={body}
          onInput={(event) => setBody(event.currentTarget.value)}
        />
        <button type="submit">Save canned reply</button>
      </form>
      {answer && (
        <p role={answer.problem ? "alert" : "status"} class={answer.problem ? "error" : "hint"}>
          {answer.text}
        </p>
      )}
    </details>
  );
}
