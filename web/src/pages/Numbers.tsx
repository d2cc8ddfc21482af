import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { ConfirmDelete } from "../ConfirmDelete";
import { InlineForm, TextField } from "../forms/Field";
import { formProblem, type FormProblem } from "../forms/problem";
import { Pager } from "../Pager";
import { usePaged } from "../usePaged";
import { useTeam, type User } from "./conversations/team";

type NumberPage = paths["/phone-numbers/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type PhoneNumber = NumberPage["items"][number];
type Health = paths["/phone-numbers/{phoneNumberId}/health"]["get"]["responses"]["200"]["content"]["application/json"];
type Available =
  paths["/available-phone-numbers"]["get"]["responses"]["200"]["content"]["application/json"]["items"][number];

const capabilityWords: Record<string, string> = { sms: "texts", mms: "pictures", voice: "calls" };

/** "texts, pictures, calls": what a number can do, in words. */
export function capabilitiesInWords(capabilities: string[]): string {
  return capabilities.map((capability) => capabilityWords[capability] ?? capability).join(", ");
}

/** A number's 10DLC state in words: the campaign it is on and that campaign's decision. */
function registrationInWords(registration: PhoneNumber["registration"]): string {
  if (!registration) return "Not on a 10DLC campaign";
  if (registration.status === "Approved") return "On an approved 10DLC campaign";
  if (registration.status === "Pending") return "On a 10DLC campaign waiting for approval";
  return "On a rejected 10DLC campaign";
}

const rate = (value: number | null) => (value === null ? "no outcome yet" : `${Math.round(value * 1000) / 10}%`);

/** The last 24 hours at the carrier: delivery rate, filtering errors, opt-outs. */
function HealthLine({ number, version }: { number: PhoneNumber; version: number }) {
  const [health, setHealth] = useState<Health | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api
      .GET("/phone-numbers/{phoneNumberId}/health", { params: { path: { phoneNumberId: number.id } } })
      .then(({ data, error: problem }) => (data ? setHealth(data) : setError(problemText(problem))));
  }, [number.id, version]);
  if (error) return <p class="error">{error}</p>;
  if (!health) return <p class="hint">Reading its health…</p>;
  const filtered = health.errors["30007"] + health.errors["30034"];
  return (
    <p class="hint" data-testid="health">
      Last 24 h: delivered {rate(health.deliveryRate)} of {health.finalOutcomes} · filtered by carriers {filtered} ·
      opt-outs {health.optOuts}
    </p>
  );
}

/**
 * A number: its name (renamed in place), whose it is (an agent's own, or the shared pool), what it can do, whether it
 * sends, its campaign, its health, release.
 */
function NumberCard({ number, team, onChanged }: { number: PhoneNumber; team: User[] | null; onChanged: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(number.friendlyName ?? "");
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [error, setError] = useState<string | null>(null);
  const path = { params: { path: { phoneNumberId: number.id } } };

  async function rename() {
    const { data, error: failed } = await api.PUT("/phone-numbers/{phoneNumberId}", {
      ...path,
      body: { friendlyName: name.trim() || null },
    });
    if (!data) return setProblem(formProblem(failed));
    setProblem(null);
    setRenaming(false);
    onChanged();
  }

  async function act(request: Promise<{ error?: unknown }>) {
    const { error: failed } = await request;
    setError(failed ? problemText(failed) : null);
    onChanged();
  }

  return (
    <li class="card" data-number-id={number.id} data-phone={number.phoneNumber}>
      <h2 class="endpoint-url">{number.friendlyName ?? number.phoneNumber}</h2>
      {number.friendlyName && <p class="number">{number.phoneNumber}</p>}
      <p>
        Can send {capabilitiesInWords(number.capabilities)}.{" "}
        <span data-testid="registration">{registrationInWords(number.registration)}</span>{" "}
        <a href="#/registration">10DLC registration</a>
      </p>
      {number.paused ? (
        <div class="attention-box" data-testid="paused">
          <p>
            <strong>Paused</strong> since {new Date(number.paused.at).toLocaleString()}: {number.paused.reason}
          </p>
          <button type="button" onClick={() => void act(api.POST("/phone-numbers/{phoneNumberId}/resume", path))}>
            Resume<span class="visually-hidden"> {number.phoneNumber}</span>
          </button>
        </div>
      ) : (
        <p data-testid="sending">Sending normally.</p>
      )}
      <HealthLine number={number} version={number.paused ? 1 : 0} />
      {/* An agent's own number texts and calls only their conversations (docs/routing.md). */}
      <p>
        <label>
          Whose number<span class="visually-hidden"> {number.phoneNumber}</span>{" "}
          <select
            value={number.assignedUserId ?? ""}
            onChange={(event) =>
              void act(
                api.PUT("/phone-numbers/{phoneNumberId}", {
                  ...path,
                  body: { assignedUserId: event.currentTarget.value || null },
                }),
              )
            }
          >
            <option value="">Shared pool</option>
            {/* Until the team is read, the owner still shows as someone's (not as the shared pool). */}
            {team === null && number.assignedUserId && <option value={number.assignedUserId}>Someone's own</option>}
            {(team ?? [])
              .filter((user) => user.status === "Active" || user.id === number.assignedUserId)
              .map((user) => (
                <option key={user.id} value={user.id}>
                  {user.name}'s own
                </option>
              ))}
          </select>
        </label>
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {renaming ? (
        <InlineForm problem={problem} onSubmit={() => void rename()}>
          <TextField label="Friendly name" pointer="/friendlyName" problem={problem} value={name} onValue={setName} />
          <button type="submit">Save name</button>
          <button type="button" class="secondary" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </InlineForm>
      ) : (
        <div class="node-actions">
          <button type="button" class="secondary" onClick={() => setRenaming(true)}>
            Rename<span class="visually-hidden"> {number.phoneNumber}</span>
          </button>
          <ConfirmDelete
            label="Release"
            onDelete={() => void act(api.DELETE("/phone-numbers/{phoneNumberId}", path))}
          />
        </div>
      )}
    </li>
  );
}

/** Search the carrier's numbers by area code and state, then buy one (its first month's fee comes from the wallet). */
function BuyNumber({ onBought }: { onBought: () => void }) {
  const [areaCode, setAreaCode] = useState("");
  const [region, setRegion] = useState("");
  const [offered, setOffered] = useState<Available[] | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [buyError, setBuyError] = useState<string | null>(null);
  const [bought, setBought] = useState<string | null>(null);

  async function search() {
    setOffered(null); // the last search's offers are not this one's
    const query = {
      ...(areaCode.trim() ? { areaCode: areaCode.trim() } : {}),
      ...(region.trim() ? { region: region.trim() } : {}),
      limit: "10",
    };
    const { data, error } = await api.GET("/available-phone-numbers", { params: { query } });
    if (!data) return setProblem(formProblem(error));
    setProblem(null);
    setOffered(data.items);
  }

  async function buy(phoneNumber: string) {
    const { data, error } = await api.POST("/phone-numbers", {
      params: { header: { "Idempotency-Key": crypto.randomUUID() } },
      body: { phoneNumber, purchase: true },
    });
    if (!data) return setBuyError(problemText(error));
    setBuyError(null);
    setBought(data.phoneNumber);
    setOffered((current) => current?.filter((item) => item.phoneNumber !== phoneNumber) ?? null);
    onBought();
  }

  return (
    <section aria-labelledby="buy-number">
      <h2 id="buy-number">Buy a number</h2>
      <InlineForm problem={problem} onSubmit={() => void search()}>
        <TextField
          label="Area code"
          pointer="/query/areaCode"
          problem={problem}
          inputMode="numeric"
          placeholder="212"
          value={areaCode}
          onValue={setAreaCode}
        />
        <TextField
          label="State"
          pointer="/query/region"
          problem={problem}
          placeholder="NY"
          value={region}
          onValue={setRegion}
        />
        <button type="submit">Search numbers</button>
      </InlineForm>
      {bought && (
        <p role="status" data-testid="bought">
          {bought} is yours: it sends from now on.
        </p>
      )}
      {buyError && (
        <p role="alert" class="error">
          {buyError}
        </p>
      )}
      {offered && offered.length === 0 && (
        <p role="status">The carrier offers no number there; try another area code.</p>
      )}
      {offered && offered.length > 0 && (
        <ul class="offers" data-testid="offers">
          {offered.map((item) => (
            <li data-phone={item.phoneNumber}>
              <span>
                <strong>{item.phoneNumber}</strong>{" "}
                <small class="hint">
                  {[item.locality, item.region].filter(Boolean).join(", ")} · {capabilitiesInWords(item.capabilities)}
                </small>
              </span>
              <button type="button" onClick={() => void buy(item.phoneNumber)}>
                Buy<span class="visually-hidden"> {item.phoneNumber}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The organization's numbers: buy, rename, resume a paused one, release; their health and 10DLC state. */
export function Numbers() {
  const team = useTeam();
  const numbers = usePaged<NumberPage>((continuationToken) =>
    api.POST("/phone-numbers/all/my", { body: { pageSize: 50, continuationToken } }),
  );
  return (
    <>
      <h1>Numbers</h1>
      <BuyNumber onBought={numbers.reload} />
      {numbers.error && (
        <p role="alert" class="error">
          {numbers.error}
        </p>
      )}
      {numbers.page && numbers.page.items.length === 0 && <p>No number yet: buy one above to text and call leads.</p>}
      <ul class="endpoints" data-testid="numbers">
        {numbers.page?.items.map((number) => (
          <NumberCard
            key={`${number.id}:${number.modifiedAt ?? ""}`}
            number={number}
            team={team}
            onChanged={numbers.reload}
          />
        ))}
      </ul>
      {numbers.page && (
        <Pager
          label="Number pages"
          tokens={numbers.tokens}
          next={numbers.page.continuationToken}
          onChange={numbers.setTokens}
        />
      )}
    </>
  );
}
