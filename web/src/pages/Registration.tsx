import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { ProblemSummary } from "../forms/Field";
import { errorsAt, formProblem, type FormProblem } from "../forms/problem";
import { SettingInput, type FieldSpec } from "../forms/SettingInput";

type Brand = paths["/carrier-registration/brand"]["get"]["responses"]["200"]["content"]["application/json"];
type BrandRequest = paths["/carrier-registration/brand"]["post"]["requestBody"]["content"]["application/json"];
type Campaign =
  paths["/carrier-registration/campaigns"]["get"]["responses"]["200"]["content"]["application/json"]["items"][number];
type CampaignRequest = paths["/carrier-registration/campaigns"]["post"]["requestBody"]["content"]["application/json"];
type PhoneNumber =
  paths["/phone-numbers/all/my"]["post"]["responses"]["200"]["content"]["application/json"]["items"][number];

// The registry's choices, as core/providers/registration.ts lists them (checked against the contract's types).
const entityTypes = [
  "PRIVATE_PROFIT",
  "PUBLIC_PROFIT",
  "NON_PROFIT",
  "GOVERNMENT",
] as const satisfies readonly BrandRequest["entityType"][];
const useCases = [
  "CUSTOMER_CARE",
  "MARKETING",
  "ACCOUNT_NOTIFICATION",
  "DELIVERY_NOTIFICATION",
  "LOW_VOLUME",
  "MIXED",
  "2FA",
  "SECURITY_ALERT",
  "FRAUD_ALERT",
  "POLLING_VOTING",
  "PUBLIC_SERVICE_ANNOUNCEMENT",
  "HIGHER_EDUCATION",
] as const satisfies readonly CampaignRequest["useCase"][];

/** The brand form: what The Campaign Registry checks against the business's EIN. */
const brandFields: FieldSpec[] = [
  { key: "entityType", label: "Kind of organization", kind: "select", options: entityTypes },
  { key: "legalName", label: "Legal name", kind: "text", hint: "As registered with the EIN." },
  { key: "displayName", label: "Name people know", kind: "text" },
  { key: "ein", label: "EIN", kind: "text", hint: "12-3456789" },
  { key: "phone", label: "Business phone", kind: "text" },
  { key: "email", label: "Compliance e-mail", kind: "text" },
  { key: "website", label: "Website", kind: "url" },
  { key: "street", label: "Street", kind: "text" },
  { key: "city", label: "City", kind: "text" },
  { key: "state", label: "State", kind: "text", hint: "Two letters, e.g. NY" },
  { key: "postalCode", label: "ZIP code", kind: "text" },
  { key: "vertical", label: "Industry", kind: "text", hint: "e.g. REAL_ESTATE, INSURANCE, CONSTRUCTION" },
];

/** The campaign form: what the business sends, how people opt in, and its HELP and STOP answers. */
const campaignFields: FieldSpec[] = [
  { key: "useCase", label: "Use case", kind: "select", options: useCases },
  { key: "description", label: "What the messages are for", kind: "textarea", hint: "At least 40 characters." },
  {
    key: "sampleMessages",
    label: "Sample messages",
    kind: "lines",
    hint: "Two to five, one a line, with the business's name and opt-out words.",
  },
  {
    key: "messageFlow",
    label: "How people opt in",
    kind: "textarea",
    hint: "Where, what they are told, what they agree to.",
  },
  { key: "helpMessage", label: "Answer to HELP", kind: "text" },
  { key: "optOutMessage", label: "Answer to STOP", kind: "text" },
  { key: "hasEmbeddedLinks", label: "Messages contain links", kind: "maybe" },
  { key: "hasEmbeddedPhone", label: "Messages contain phone numbers", kind: "maybe" },
];

const statusWords = { Pending: "Waiting for the carriers", Approved: "Approved", Rejected: "Rejected" } as const;

/** A form driven by a field table; the API is the only validator and its errors show beside each field. */
function RegistrationForm({
  title,
  fields,
  initial,
  submit,
  onDone,
}: {
  title: string;
  fields: FieldSpec[];
  initial: Record<string, unknown>;
  submit: (body: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown }>;
  onDone: () => void;
}) {
  const [values, setValues] = useState(initial);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        const { data, error } = await submit(values);
        setBusy(false);
        if (!data) return setProblem(formProblem(error));
        setProblem(null);
        onDone();
      }}
    >
      {problem && (
        <ProblemSummary
          detail={problem.detail}
          errors={problem.errors}
          place={(pointer) => fields.find((field) => pointer.startsWith(`/${field.key}`))?.label ?? pointer}
        />
      )}
      <div class="node-fields">
        {fields.map((spec) => (
          <SettingInput
            spec={spec}
            settings={values}
            pointer={`/${spec.key}`}
            errors={errorsAt(problem, `/${spec.key}`)}
            onChange={setValues}
          />
        ))}
      </div>
      <button type="submit" disabled={busy}>
        {title}
      </button>
    </form>
  );
}

/** Attach one of the organization's numbers to an approved campaign (moves it off its previous campaign). */
function AttachNumber({
  campaign,
  numbers,
  onDone,
}: {
  campaign: Campaign;
  numbers: PhoneNumber[];
  onDone: () => void;
}) {
  const candidates = numbers.filter((number) => !campaign.phoneNumberIds.includes(number.id));
  const [chosen, setChosen] = useState("");
  const [error, setError] = useState<string | null>(null);
  if (candidates.length === 0) return null;
  const label = `attach-${campaign.id}`;
  return (
    <form
      class="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!chosen) return setError("Choose a number to attach.");
        const { error: problem } = await api.PUT("/phone-numbers/{phoneNumberId}/campaign", {
          params: { path: { phoneNumberId: chosen } },
          body: { campaignId: campaign.id },
        });
        setError(problem ? problemText(problem) : null);
        if (!problem) onDone();
      }}
    >
      <div class="field">
        <label for={label}>Number to attach</label>
        <select
          id={label}
          value={chosen}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${label}-error` : undefined}
          onChange={(event) => setChosen(event.currentTarget.value)}
        >
          <option value="">Choose…</option>
          {candidates.map((number) => (
            <option value={number.id}>
              {number.friendlyName ? `${number.friendlyName} (${number.phoneNumber})` : number.phoneNumber}
            </option>
          ))}
        </select>
        {error && (
          <p class="field-error" id={`${label}-error`}>
            {error}
          </p>
        )}
      </div>
      <button type="submit">Attach</button>
    </form>
  );
}

function CampaignCard({
  campaign,
  numbers,
  onChanged,
}: {
  campaign: Campaign;
  numbers: PhoneNumber[];
  onChanged: () => void;
}) {
  const attached = numbers.filter((number) => campaign.phoneNumberIds.includes(number.id));
  return (
    <li class="card" data-campaign-id={campaign.id}>
      <h3 class="endpoint-url">
        {campaign.useCase.replaceAll("_", " ").toLowerCase()} campaign:{" "}
        <span data-testid="campaign-status">{statusWords[campaign.status]}</span>
      </h3>
      {campaign.failureReason && (
        <p class="error" data-testid="failure-reason">
          Why: {campaign.failureReason}
        </p>
      )}
      <p>{campaign.description}</p>
      <p class="hint">
        Submitted {new Date(campaign.submittedAt).toLocaleString()}
        {campaign.decidedAt ? ` · decided ${new Date(campaign.decidedAt).toLocaleString()}` : ""} · opt-outs{" "}
        {campaign.optOuts.optOuts} of {campaign.optOuts.finalOutcomes} messages in 24 h
      </p>
      <p data-testid="attached">
        {attached.length === 0
          ? "No number attached."
          : `Numbers: ${attached.map((number) => number.friendlyName ?? number.phoneNumber).join(", ")}`}
      </p>
      {campaign.status === "Approved" && <AttachNumber campaign={campaign} numbers={numbers} onDone={onChanged} />}
    </li>
  );
}

/** 10DLC registration: the brand and its campaigns with the carriers' decisions, forms to submit them, numbers to attach. */
export function Registration() {
  const [brand, setBrand] = useState<Brand | null | undefined>(undefined);
  const [campaigns, setCampaigns] = useState<Campaign[]>([]);
  const [numbers, setNumbers] = useState<PhoneNumber[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [addingCampaign, setAddingCampaign] = useState(false);
  const reload = () => setVersion((count) => count + 1);
  useEffect(() => {
    void Promise.all([
      api.GET("/carrier-registration/brand"),
      api.GET("/carrier-registration/campaigns"),
      api.POST("/phone-numbers/all/my", { body: { pageSize: 100 } }),
    ]).then(([brandAnswer, campaignAnswer, numberAnswer]) => {
      setBrand(brandAnswer.data ?? null);
      if (campaignAnswer.data) setCampaigns(campaignAnswer.data.items);
      if (numberAnswer.data) setNumbers(numberAnswer.data.items);
      const failed = campaignAnswer.error ?? numberAnswer.error;
      setError(failed ? problemText(failed) : null);
    });
  }, [version]);

  async function refresh() {
    const { error: problem } = await api.POST("/carrier-registration/refresh");
    setError(problem ? problemText(problem) : null);
    reload();
  }

  if (brand === undefined) return <h1>10DLC registration</h1>;
  const pending = brand?.status === "Pending" || campaigns.some((campaign) => campaign.status === "Pending");
  return (
    <>
      <h1>10DLC registration</h1>
      <p>
        US carriers block business texts from local numbers that are not on an approved 10DLC campaign. Register the
        brand once, then a campaign for what you send, and attach your numbers to it.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {pending && (
        <p>
          <button type="button" class="secondary" onClick={() => void refresh()}>
            Ask the carriers now
          </button>{" "}
          <small class="hint">They are asked every 15 minutes anyway.</small>
        </p>
      )}
      <section aria-labelledby="brand">
        <h2 id="brand">Brand</h2>
        {brand && (
          <dl class="totals" data-testid="brand">
            <dt>Business</dt>
            <dd>
              {brand.displayName} ({brand.legalName})
            </dd>
            <dt>Status</dt>
            <dd data-testid="brand-status">{statusWords[brand.status]}</dd>
            {brand.failureReason && (
              <>
                <dt>Why</dt>
                <dd class="error">{brand.failureReason}</dd>
              </>
            )}
            {brand.vettingScore !== null && (
              <>
                <dt>Vetting score</dt>
                <dd data-testid="vetting-score">{brand.vettingScore} of 100</dd>
              </>
            )}
          </dl>
        )}
        {(!brand || brand.status === "Rejected") && (
          <>
            <p>{brand ? "Correct the details and submit the brand again." : "No brand registered yet."}</p>
            <RegistrationForm
              title="Register the brand"
              fields={brandFields}
              initial={brand ? { ...brand } : { entityType: "PRIVATE_PROFIT" }}
              submit={(body) =>
                api.POST("/carrier-registration/brand", {
                  params: { header: { "Idempotency-Key": crypto.randomUUID() } },
                  body: pick(body, brandFields) as BrandRequest,
                })
              }
              onDone={reload}
            />
          </>
        )}
      </section>
      <section aria-labelledby="campaigns">
        <h2 id="campaigns">Campaigns</h2>
        {campaigns.length === 0 && <p>No campaign yet.</p>}
        <ul class="endpoints" data-testid="campaigns">
          {campaigns.map((campaign) => (
            <CampaignCard campaign={campaign} numbers={numbers} onChanged={reload} />
          ))}
        </ul>
        {brand?.status === "Approved" ? (
          addingCampaign ? (
            <RegistrationForm
              title="Register the campaign"
              fields={campaignFields}
              initial={{ useCase: "CUSTOMER_CARE" }}
              submit={(body) =>
                api.POST("/carrier-registration/campaigns", {
                  params: { header: { "Idempotency-Key": crypto.randomUUID() } },
                  body: pick(body, campaignFields) as CampaignRequest,
                })
              }
              onDone={() => {
                setAddingCampaign(false);
                reload();
              }}
            />
          ) : (
            <button type="button" onClick={() => setAddingCampaign(true)}>
              Add a campaign
            </button>
          )
        ) : (
          <p class="hint">A campaign can be registered once the brand is approved.</p>
        )}
      </section>
    </>
  );
}

/** Only the form's own fields (a rejected brand's answer carries status and ids the request does not take). */
function pick(values: Record<string, unknown>, fields: FieldSpec[]): Record<string, unknown> {
  return Object.fromEntries(
    fields.filter((field) => values[field.key] !== undefined).map((field) => [field.key, values[field.key]]),
  );
}
