import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import type { paths } from "../api/schema";
import { Field, ProblemSummary, TextField } from "../forms/Field";
import { errorsAt, formProblem, type FormProblem } from "../forms/problem";
import { SettingInput, type FieldSpec } from "../forms/SettingInput";
import { SaveActions } from "../forms/SaveActions";

type Settings = Record<string, unknown>;
type SettingsBody = NonNullable<paths["/messaging/settings"]["put"]["requestBody"]>["content"]["application/json"];
type Carrier = NonNullable<SettingsBody["provider"]>;
type Organization = paths["/organizations/me"]["get"]["responses"][200]["content"]["application/json"];
type OrganizationChange = NonNullable<paths["/organizations/me"]["put"]["requestBody"]>["content"]["application/json"];

/** The carriers the API names; which of them this deployment has credentials for, only a save tells. */
const carriers = ["twilio", "telnyx", "simulator"] as const satisfies readonly Carrier[];
const carrierNames: Record<Carrier, string> = { twilio: "Twilio", telnyx: "Telnyx", simulator: "Simulator (test)" };

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
    title: "Messaging failover",
    fields: [
      {
        key: "provider",
        label: "Carrier",
        kind: "select",
        options: carriers,
        labels: carrierNames,
        optional: true,
        unchosen: "This deployment's default",
        hint: "Texts, calls and new numbers go through it.",
      },
      {
        key: "failoverProvider",
        label: "Fail over to",
        kind: "select",
        options: carriers,
        labels: carrierNames,
        optional: true,
        unchosen: "Off",
        hint: "A text the carrier refuses for now (busy, rate limit, outage) is sent once through this one instead.",
      },
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

/** The label of the setting a pointer names (`/inboundCalls/forwardTo` → "Ring calls to"). */
function settingLabel(pointer: string): string {
  const fields = groups.flatMap((group) => group.fields);
  return fields.find((field) => pointer.startsWith(`/${field.key.replaceAll(".", "/")}`))?.label ?? pointer;
}

/** The Settings page: the business's profile, then its messaging settings; each saved on its own. */
export function SettingsPage() {
  return (
    <>
      <h1>Settings</h1>
      <OrganizationProfile />
      <MessagingSettings />
    </>
  );
}

/** What the profile form calls each field, to name it in the problem's list. */
const profileLabels: Record<string, string> = {
  "/name": "Business name",
  "/timeZone": "Time zone",
  "/phone": "Business phone",
  "/website": "Website",
};

/** The time zones this browser knows, offered while typing one (the API checks what is sent). */
const timeZones: readonly string[] =
  (Intl as { supportedValuesOf?: (key: "timeZone") => string[] }).supportedValuesOf?.("timeZone") ?? [];

/** The business profile (PUT /organizations/me): name, time zone, phone and website. */
function OrganizationProfile() {
  const [profile, setProfile] = useState<Organization | null>(null);
  const [form, setForm] = useState({ name: "", timeZone: "", phone: "", website: "" });
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [saved, setSaved] = useState(false);
  const show = (organization: Organization) => {
    setProfile(organization);
    setForm({
      name: organization.name,
      timeZone: organization.timeZone,
      phone: organization.phone ?? "",
      website: organization.website ?? "",
    });
  };
  useEffect(() => {
    void api.GET("/organizations/me").then(({ data, error }) => (data ? show(data) : setProblem(formProblem(error))));
  }, []);
  const edit = (field: keyof typeof form) => (value: string) => {
    setSaved(false);
    setForm((current) => ({ ...current, [field]: value }));
  };

  async function save() {
    const body: OrganizationChange = {
      name: form.name,
      timeZone: form.timeZone.trim(),
      phone: form.phone.trim() || null,
      website: form.website.trim() || null,
    };
    const { data, error } = await api.PUT("/organizations/me", { body });
    setSaved(Boolean(data));
    setProblem(data ? null : formProblem(error));
    if (data) show(data);
  }

  return (
    <section aria-labelledby="organization">
      <h2 id="organization">Organization</h2>
      {!profile ? (
        problem ? (
          <ProblemSummary detail={problem.detail} errors={[]} />
        ) : (
          <p role="status">Loading…</p>
        )
      ) : (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          {problem && (
            <ProblemSummary
              detail={problem.detail}
              errors={problem.errors}
              place={(pointer) => profileLabels[pointer] ?? pointer}
            />
          )}
          <div class="node-fields">
            <TextField
              label="Business name"
              pointer="/name"
              problem={problem}
              value={form.name}
              onValue={edit("name")}
              autocomplete="organization"
            />
            <Field
              label="Time zone"
              pointer="/timeZone"
              errors={errorsAt(problem, "/timeZone")}
              hint="Schedules, waits until a time of day and working hours follow it."
            >
              {(control) => (
                <>
                  <input
                    {...control}
                    list="time-zones"
                    autocomplete="off"
                    value={form.timeZone}
                    onInput={(event) => edit("timeZone")(event.currentTarget.value)}
                  />
                  <datalist id="time-zones">
                    {timeZones.map((zone) => (
                      <option value={zone} />
                    ))}
                  </datalist>
                </>
              )}
            </Field>
            <TextField
              label="Business phone"
              pointer="/phone"
              problem={problem}
              value={form.phone}
              onValue={edit("phone")}
              type="tel"
              autocomplete="tel"
              placeholder="+14155550123"
            />
            <TextField
              label="Website"
              pointer="/website"
              problem={problem}
              value={form.website}
              onValue={edit("website")}
              type="url"
              autocomplete="url"
              placeholder="https://example.com"
            />
          </div>
          <p class="hint">
            Messages can name them: {"{{organization.name}}"}, {"{{organization.phone}}"}, {"{{organization.website}}"}.
          </p>
          <SaveActions label="Save organization" saved={saved} testId="organization-saved" />
        </form>
      )}
    </section>
  );
}

/** Messaging settings: quiet hours, failover, compliance replies and keywords, call forwarding; saved whole with PUT. */
function MessagingSettings() {
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
      {problem && <ProblemSummary detail={problem.detail} errors={problem.errors} place={settingLabel} />}
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
      <SaveActions label="Save settings" saved={saved} />
    </form>
  );
}
