import { useState } from "preact/hooks";
import { api, problemText } from "../../api/client";
import type { User } from "./team";

/**
 * Calls the contact through the signed-in person's own phone (`POST /calls` with `connectTo` = their profile phone):
 * their phone rings first, and once they answer the contact is dialed. Without a phone on the profile it says so and
 * offers to save one (`PUT /users/me`).
 */
export function CallButton(props: {
  target: { leadId: string } | { to: string };
  fromPhoneNumberId?: string | null;
  me: User | null | undefined;
  who: string;
  onPlaced: () => void;
}) {
  const { target, fromPhoneNumberId, who, onPlaced } = props;
  const [phone, setPhone] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [answer, setAnswer] = useState<{ text: string; problem: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const myPhone = phone ?? props.me?.phone ?? null;

  async function call(connectTo: string) {
    setBusy(true);
    const { data, error } = await api.POST("/calls", {
      body: { ...target, connectTo, ...(fromPhoneNumberId ? { fromPhoneNumberId } : {}) },
    });
    setBusy(false);
    if (!data) return setAnswer({ text: problemText(error), problem: true });
    setAnswer({ text: `Calling your phone (${connectTo}) first: answer it and ${who} is dialed.`, problem: false });
    onPlaced();
  }

  return (
    <div class="call-action">
      <button
        type="button"
        disabled={busy || props.me === undefined}
        onClick={() => {
          if (props.me === null)
            return setAnswer({
              text: "Calls ring your own phone: sign in as a person (not an API key) to call.",
              problem: true,
            });
          if (!myPhone) return setAsking(true);
          void call(myPhone);
        }}
      >
        Call {who}
      </button>
      {asking && !myPhone && (
        <form
          class="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            const input = (event.currentTarget.elements.namedItem("my-phone") as HTMLInputElement).value;
            setBusy(true);
            const { data, error } = await api.PUT("/users/me", { body: { phone: input } });
            setBusy(false);
            if (!data?.phone) return setAnswer({ text: problemText(error), problem: true });
            setPhone(data.phone);
            setAsking(false);
            await call(data.phone);
          }}
        >
          <p role="alert" class="error">
            Your profile has no phone number. A call rings your phone first, then connects {who}.
          </p>
          <label>
            Your phone number
            <input name="my-phone" type="tel" autoComplete="tel" required />
          </label>
          <button type="submit" disabled={busy}>
            Save and call
          </button>
        </form>
      )}
      {answer && (
        <p
          role={answer.problem ? "alert" : "status"}
          class={answer.problem ? "error" : "hint"}
          data-testid="call-answer"
        >
          {answer.text}
        </p>
      )}
    </div>
  );
}
