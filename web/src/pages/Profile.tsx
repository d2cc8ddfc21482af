import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import { Field, ProblemSummary } from "../forms/Field";
import { errorsAt, formProblem, type FormProblem } from "../forms/problem";
import { SaveActions } from "../forms/SaveActions";
import type { User } from "./conversations/team";

type Alerts = User["alerts"];
type Channel = Alerts["newLead"][number];

const alertKinds: { key: keyof Alerts; legend: string }[] = [
  { key: "newLead", legend: "A lead is assigned or offered to me" },
  { key: "inboundReply", legend: "A contact of my conversations replies" },
];
const channels: { value: Channel; label: string }[] = [
  { value: "sms", label: "Text message to my phone" },
  { value: "email", label: "E-mail" },
];

/**
 * The signed-in person's own settings: the phone their calls ring and text alerts go to, how they are told of new
 * leads and replies (PUT /users/me), and whether they are away (PUT /routing/agents/{id}/away: no leads, calls or
 * alerts until they are back).
 */
export function Profile() {
  const [me, setMe] = useState<User | null>(null);
  const [phone, setPhone] = useState("");
  const [alerts, setAlerts] = useState<Alerts | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    void api.GET("/users/me").then(({ data, error }) => {
      if (!data) return setProblem(formProblem(error));
      setMe(data);
      setPhone(data.phone ?? "");
      setAlerts(data.alerts);
    });
  }, []);
  if (!me || !alerts)
    return problem ? <ProblemSummary detail={problem.detail} errors={[]} /> : <p role="status">Loading…</p>;

  async function save(current: Alerts) {
    const { data, error } = await api.PUT("/users/me", { body: { phone: phone.trim() || null, alerts: current } });
    setSaved(Boolean(data));
    setProblem(data ? null : formProblem(error));
    if (data) setMe(data);
  }

  const toggle = (kind: keyof Alerts, channel: Channel, on: boolean) => {
    setSaved(false);
    const chosen = alerts[kind].filter((item) => item !== channel);
    setAlerts({ ...alerts, [kind]: on ? [...chosen, channel] : chosen });
  };

  return (
    <>
      <h1>Your profile</h1>
      <p>
        {me.name} · {me.email} · {me.role}
      </p>
      <Away userId={me.id} />
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void save(alerts);
        }}
      >
        {problem && <ProblemSummary detail={problem.detail} errors={problem.errors} />}
        <section aria-labelledby="reach-me">
          <h2 id="reach-me">Where you are reached</h2>
          <div class="node-fields">
            <Field
              label="Your phone"
              pointer="/phone"
              errors={errorsAt(problem, "/phone")}
              hint="E.164, such as +14155550123: your calls ring it first, text alerts go to it."
            >
              {(control) => (
                <input
                  {...control}
                  type="tel"
                  autocomplete="tel"
                  value={phone}
                  onInput={(event) => {
                    setSaved(false);
                    setPhone(event.currentTarget.value);
                  }}
                />
              )}
            </Field>
          </div>
        </section>
        <section aria-labelledby="alerts">
          <h2 id="alerts">Alerts</h2>
          <div class="node-fields">
            {alertKinds.map((kind) => (
              <fieldset
                class={errorsAt(problem, `/alerts/${kind.key}`).length ? "field invalid" : "field"}
                data-pointer={`/alerts/${kind.key}`}
              >
                <legend>{kind.legend}</legend>
                <div class="checks">
                  {channels.map((channel) => (
                    <label>
                      <input
                        type="checkbox"
                        checked={alerts[kind.key].includes(channel.value)}
                        onChange={(event) => toggle(kind.key, channel.value, event.currentTarget.checked)}
                      />
                      {channel.label}
                    </label>
                  ))}
                </div>
                {errorsAt(problem, `/alerts/${kind.key}`).map((text) => (
                  <p class="field-error">{text}</p>
                ))}
              </fieldset>
            ))}
          </div>
          <p class="hint">Nothing is sent while you are away. Text alerts come from your organization's number.</p>
        </section>
        <SaveActions label="Save profile" saved={saved} />
      </form>
    </>
  );
}

/** Away: routing gives no lead, calls go to the fallback, and no alert is sent, until the person is back. */
function Away({ userId }: { userId: string }) {
  const [away, setAway] = useState<boolean | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    void api
      .GET("/routing/agents/{userId}/away", { params: { path: { userId } } })
      .then(({ data, error }) => (data ? setAway(data.away) : setProblem(problemText(error))));
  }, [userId]);
  async function set(next: boolean) {
    const { data, error } = await api.PUT("/routing/agents/{userId}/away", {
      params: { path: { userId } },
      body: { away: next },
    });
    if (!data) return setProblem(problemText(error));
    setProblem(null);
    setAway(data.away);
  }
  return (
    <section aria-labelledby="availability">
      <h2 id="availability">Availability</h2>
      <p data-testid="away">
        {away === null ? "…" : away ? "You are away: no new leads, calls or alerts." : "You are available."}
      </p>
      {away !== null && (
        <button type="button" onClick={() => void set(!away)}>
          {away ? "I'm back" : "I'm away"}
        </button>
      )}
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
    </section>
  );
}
