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
type TollFreePath = paths["/phone-numbers/{phoneNumberId}/toll-free-verification"];
type Verification = TollFreePath["get"]["responses"]["200"]["content"]["application/json"];
type VerificationRequest = TollFreePath["post"]["requestBody"]["content"]["application/json"];

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

const tollFreeUseCases = [
  "CUSTOMER_CARE",
  "ACCOUNT_NOTIFICATIONS",
  "DELIVERY_NOTIFICATIONS",
  "TWO_FACTOR_AUTHENTICATION",
  "MARKETING",
] as const satisfies readonly VerificationRequest["useCase"][];
const optInTypes = [
  "WEB_FORM",
  "VERBAL",
  "PAPER_FORM",
  "VIA_TEXT",
  "MOBILE_QR_CODE",
] as const satisfies readonly VerificationRequest["optInType"][];
const messageVolumes = [
  "10",
  "100",
  "1,000",
  "10,000",
  "100,000",
  "250,000",
  "500,000",
  "750,000",
  "1,000,000",
  "5,000,000",
  "10,000,000+",
] as const satisfies readonly VerificationRequest["messageVolume"][];

/** NANP toll-free area codes (core/shared/phone.ts): these numbers are verified, not put on a campaign. */
const isTollFree = (number: PhoneNumber) => /^\+18(00|33|44|55|66|77|88)/.test(number.phoneNumber);

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

/** The toll-free verification form: what the number sends and how people opt in (the business is the brand's). */
const verificationFields: FieldSpec[] = [
  { key: "useCase", label: "Use", kind: "select", options: tollFreeUseCases },
  {
    key: "useCaseSummary",
    label: "What the texts are for",
    kind: "textarea",
    hint: "At least 40 characters: what is sent, to whom.",
  },
  {
    key: "productionMessageSample",
    label: "A real message",
    kind: "textarea",
    hint: "With the business's name and opt-out words.",
  },
  { key: "optInType", label: "Opt-in", kind: "select", options: optInTypes },
  {
    key: "optInImageUrls",
    label: "Opt-in images",
    kind: "lines",
    hint: "One to five public links, one a line, showing where people agree to texts.",
  },
  { key: "messageVolume", label: "Messages a month", kind: "select", options: messageVolumes },
  { key: "contactFirstName", label: "Contact first name", kind: "text" },
  { key: "contactLastName", label: "Contact last name", kind: "text" },
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
  // A toll-free number is verified, never put on a 10DLC campaign (the API refuses it).
  const candidates = numbers.filter((number) => !campaign.phoneNumberIds.includes(number.id) && !isTollFree(number));
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

/** A toll-free number with its verification (null: none yet), and the form to submit it while it may be. */
function TollFreeCard({
  number,
  verification,
  brand,
  onChanged,
}: {
  number: PhoneNumber;
  verification: Verification | null;
  brand: Brand | null;
  onChanged: () => void;
}) {
  const [open, setOpen] = useState(false);
  const name = number.friendlyName ? `${number.friendlyName} (${number.phoneNumber})` : number.phoneNumber;
  const submittable = !verification || verification.status === "Rejected";
  return (
    <li class="card" data-testid="toll-free" data-phone-number-id={number.id}>
      <h3 class="endpoint-url">
        {name}:{" "}
        <span data-testid="verification-status">
          {verification ? statusWords[verification.status] : "Not verified"}
        </span>
      </h3>
      {verification?.failureReason && (
        <p class="error" data-testid="verification-reason">
          Why: {verification.failureReason}
          {verification.errorCode ? ` (error ${verification.errorCode})` : ""}
        </p>
      )}
      {verification?.status === "Rejected" && (
        <p class="hint">
          {verification.editAllowed
            ? "The carrier lets the details be corrected: change what it names and submit again."
            : "The carrier does not let this one be corrected: a new submission may be refused again."}
        </p>
      )}
      {verification && (
        <p class="hint">
          Submitted {new Date(verification.submittedAt).toLocaleString()}
          {verification.decidedAt ? ` · decided ${new Date(verification.decidedAt).toLocaleString()}` : ""}
        </p>
      )}
      {!verification && <p>It sends texts once the carrier verified it.</p>}
      {submittable &&
        (!brand || brand.status === "Rejected" ? (
          <p class="hint">It is verified with the brand's business details: register the brand first.</p>
        ) : open ? (
          <RegistrationForm
            title="Submit the verification"
            fields={verificationFields}
            initial={
              verification
                ? { ...verification }
                : { useCase: "CUSTOMER_CARE", optInType: "WEB_FORM", messageVolume: "1,000" }
            }
            submit={(body) =>
              api.POST("/phone-numbers/{phoneNumberId}/toll-free-verification", {
                params: { path: { phoneNumberId: number.id }, header: { "Idempotency-Key": crypto.randomUUID() } },
                body: pick(body, verificationFields) as VerificationRequest,
              })
            }
            onDone={() => {
              setOpen(false);
              onChanged();
            }}
          />
        ) : (
          <button type="button" onClick={() => setOpen(true)}>
            {verification ? "Correct and submit again" : "Verify this number"}
          </button>
        ))}
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
  const [verifications, setVerifications] = useState<Record<string, Verification | null>>({});
  const [addingCampaign, setAddingCampaign] = useState(false);
  const reload = () => setVersion((count) => count + 1);
  useEffect(() => {
    void Promise.all([
      api.GET("/carrier-registration/brand"),
      api.GET("/carrier-registration/campaigns"),
      api.POST("/phone-numbers/all/my", { body: { pageSize: 100 } }),
    ]).then(async ([brandAnswer, campaignAnswer, numberAnswer]) => {
      const listed = numberAnswer.data?.items ?? [];
      // One read per toll-free number (few per organization); a 404 is "not submitted yet".
      const read = await Promise.all(
        listed.filter(isTollFree).map(async (number) => {
          const { data } = await api.GET("/phone-numbers/{phoneNumberId}/toll-free-verification", {
            params: { path: { phoneNumberId: number.id } },
          });
          return [number.id, data ?? null] as const;
        }),
      );
      setBrand(brandAnswer.data ?? null);
      if (campaignAnswer.data) setCampaigns(campaignAnswer.data.items);
      setNumbers(listed);
      setVerifications(Object.fromEntries(read));
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
  const tollFree = numbers.filter(isTollFree);
  const pending =
    brand?.status === "Pending" ||
    campaigns.some((campaign) => campaign.status === "Pending") ||
    Object.values(verifications).some((verification) => verification?.status === "Pending");
  return (
    <>
      <h1>10DLC registration</h1>
      <p>
        US carriers block business texts from local numbers that are not on an approved 10DLC campaign. Register the
        brand once, then a campaign for what you send, and attach your numbers to it. A toll-free number is verified on
        its own instead, with the brand's business details.
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
      <section aria-labelledby="toll-free">
        <h2 id="toll-free">Toll-free numbers</h2>
        {tollFree.length === 0 ? (
          <p>No toll-free number. Numbers starting 800, 833, 844, 855, 866, 877 or 888 are verified here.</p>
        ) : (
          <ul class="endpoints">
            {tollFree.map((number) => (
              <TollFreeCard
                number={number}
                verification={verifications[number.id] ?? null}
                brand={brand}
                onChanged={reload}
              />
            ))}
          </ul>
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
