import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import { ProblemSummary } from "../forms/Field";
import { errorsAt, formProblem, type FormProblem } from "../forms/problem";
import { SettingInput, type FieldSpec } from "../forms/SettingInput";

type Settings = Record<string, unknown>;

/** The messaging settings a person changes, grouped as the page shows them; keys reach into the settings object. */
const groups: { title: string; fields: FieldSpec[] }[] = [
  {
    title: "Quiet hours",
    fields: [
      {
        key: "quietHours.start",
        label: "No texts from",
        kind: "time",
        hint: "In the lead's time zone; the same start and end turns quiet hours off.",
      },
      { key: "quietHours.end", label: "Until", kind: "time" },
    ],
  },
  {
    title: "Automatic replies",
    fields: [
      { key: "helpText", label: "Reply to HELP", kind: "textarea" },
      { key: "optOutConfirmationText", label: "Reply to STOP", kind: "textarea" },
      { key: "optInConfirmationText", label: "Reply to START", kind: "textarea" },
      {
        key: "keywords.optOut",
        label: "Extra opt-out words",
        kind: "lines",
        hint: "One a line, besides STOP and its synonyms.",
      },
      { key: "keywords.optIn", label: "Extra opt-in words", kind: "lines" },
      { key: "keywords.help", label: "Extra help words", kind: "lines" },
    ],
  },
  {
    title: "Calls",
    fields: [
      {
        key: "inboundCalls.forwardTo",
        label: "Ring calls to",
        kind: "text",
        hint: "E.164, such as +14155550123; empty: every call is missed.",
      },
      { key: "inboundCalls.ringSeconds", label: "Ring for (seconds)", kind: "number" },
      {
        key: "outboundCalls.connectTo",
        label: "Click-to-call rings first",
        kind: "text",
        hint: "Your phone, rung before the lead is dialed.",
      },
      { key: "outboundCalls.whisper", label: "Whisper before connecting", kind: "text" },
    ],
  },
];

/** Messaging settings: quiet hours, compliance replies and keywords, call forwarding; saved whole with PUT. */
export function MessagingSettings() {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    void api.GET("/messaging/settings").then(({ data, error }) => {
      if (!data) return setProblem(formProblem(error));
      // The response's timestamp is not part of what PUT takes.
      const { modifiedAt: _modifiedAt, ...editable } = data;
      setSettings(editable);
    });
  }, []);
  if (!settings)
    return problem ? <ProblemSummary detail={problem.detail} errors={[]} /> : <p role="status">Loading…</p>;

  async function save() {
    const { data, error } = await api.PUT("/messaging/settings", { body: settings as never });
    setSaved(Boolean(data));
    setProblem(data ? null : formProblem(error));
  }

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h1>Settings</h1>
      {problem && <ProblemSummary detail={problem.detail} errors={problem.errors} />}
      {groups.map((group) => (
        <section aria-label={group.title}>
          <h2>{group.title}</h2>
          <div class="node-fields">
            {group.fields.map((spec) => {
              const pointer = `/${spec.key.replaceAll(".", "/")}`;
              return (
                <SettingInput
                  spec={spec}
                  settings={settings}
                  pointer={pointer}
                  errors={errorsAt(problem, pointer)}
                  onChange={(next) => {
                    setSaved(false);
                    setSettings(next);
                  }}
                />
              );
            })}
          </div>
        </section>
      ))}
      <div class="node-actions">
        <button type="submit">Save settings</button>
        {saved && (
          <span role="status" data-testid="saved">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}
