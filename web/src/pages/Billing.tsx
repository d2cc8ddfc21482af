import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { Card } from "../Card";
import { InlineForm, TextField } from "../forms/Field";
import { formProblem, type FormProblem } from "../forms/problem";
import { Pager } from "../Pager";
import { money } from "../money";
import { AddFunds } from "./TopUp";

type Wallet = paths["/billing/wallet"]["get"]["responses"]["200"]["content"]["application/json"];
type LedgerPage = paths["/billing/ledger/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type Usage = paths["/billing/usage"]["get"]["responses"]["200"]["content"]["application/json"];
type UsageKind = Usage["kinds"][number];

/** The wallet as the API states it and its ledger, paged by the API's continuation tokens. */
export function Billing() {
  const [wallet, setWallet] = useState<Wallet | null>(null);
  const [tokens, setTokens] = useState<(string | null)[]>([null]);
  const [ledger, setLedger] = useState<LedgerPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [credited, setCredited] = useState(0);
  useEffect(() => {
    void api
      .GET("/billing/wallet")
      .then(({ data, error: problem }) => (data ? setWallet(data) : setError(problemText(problem))));
  }, [credited]);
  useEffect(() => {
    void api
      .POST("/billing/ledger/all/my", { body: { pageSize: 25, continuationToken: tokens[tokens.length - 1] ?? null } })
      .then(({ data, error: problem }) => (data ? setLedger(data) : setError(problemText(problem))));
  }, [tokens, credited]);
  return (
    <>
      <h1>Billing</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {wallet && (
        <section aria-labelledby="wallet" class="cards">
          <h2 id="wallet" class="visually-hidden">
            Wallet
          </h2>
          <Card label="Balance" value={money(wallet.balance, wallet.currency)} testId="wallet-balance">
            {wallet.status} · alert below {money(wallet.lowBalanceThreshold, wallet.currency)}
          </Card>
          <Card label="Reserved" value={money(wallet.reservedAmount, wallet.currency)} testId="wallet-reserved" />
          <Card label="Available" value={money(wallet.availableBalance, wallet.currency)} testId="wallet-available" />
        </section>
      )}
      <UsageThisMonth />
      {wallet && <AlertThreshold wallet={wallet} onSaved={setWallet} />}
      {wallet && <AddFunds currency={wallet.currency} onCredited={() => setCredited((count) => count + 1)} />}
      {wallet && (
        <section aria-labelledby="prices">
          <h2 id="prices">Prices</h2>
          <dl class="totals" data-testid="prices">
            <dt>Text (per segment)</dt>
            <dd>{money(wallet.prices.smsSegment, wallet.prices.currency)}</dd>
            <dt>Picture message</dt>
            <dd>{money(wallet.prices.mmsMessage, wallet.prices.currency)}</dd>
            <dt>Call minute</dt>
            <dd>
              {money(wallet.prices.callMinute, wallet.prices.currency)}{" "}
              {wallet.prices.callRounding === "PerSecond" ? "(billed per second)" : "(per started minute)"}
            </dd>
            <dt>Phone number (monthly)</dt>
            <dd>{money(wallet.prices.phoneNumberMonthly, wallet.prices.currency)}</dd>
          </dl>
        </section>
      )}
      {ledger && (
        <section aria-labelledby="ledger">
          <h2 id="ledger">Ledger</h2>
          <table class="stacked" data-testid="ledger">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Entry</th>
                <th scope="col">Amount</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {ledger.items.map((entry) => (
                <tr>
                  <th scope="row">{new Date(entry.createdAt).toLocaleString()}</th>
                  <td>{entry.entryType}</td>
                  <td class="amount">{money(entry.amount, entry.currency)}</td>
                  <td>{entry.description ?? entry.reason ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Ledger pages" tokens={tokens} next={ledger.continuationToken} onChange={setTokens} />
        </section>
      )}
    </>
  );
}

/** How each kind of usage is named, and its quantity said (`kind` is the ledger's charge reason). */
const usageKinds: Record<string, { label: string; quantity: (kind: UsageKind) => string }> = {
  SmsSegments: {
    label: "Text messages",
    quantity: (kind) => `${count(kind.count, "message")} · ${count(kind.quantity, "segment")}`,
  },
  MmsMessage: { label: "Picture messages", quantity: (kind) => count(kind.count, "message") },
  CallMinutes: {
    label: "Call minutes",
    quantity: (kind) => `${count(kind.count, "call")} · ${minutes(kind.quantity)}`,
  },
  CallForwarded: {
    label: "Forwarded call minutes",
    quantity: (kind) => `${count(kind.count, "call")} · ${minutes(kind.quantity)}`,
  },
  PhoneNumberMonthly: {
    label: "Phone numbers",
    quantity: (kind) => `${count(kind.count, "monthly fee")} · ${count(kind.quantity, "day")}`,
  },
};

const count = (value: number, noun: string) => `${value} ${noun}${value === 1 ? "" : "s"}`;
const minutes = (seconds: number) => `${Number((seconds / 60).toFixed(2))} min`;

/** This month's charges by kind (GET /billing/usage, whose default period is the current UTC month) and their total. */
function UsageThisMonth() {
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api
      .GET("/billing/usage")
      .then(({ data, error: problem }) => (data ? setUsage(data) : setError(problemText(problem))));
  }, []);
  return (
    <section aria-labelledby="usage">
      <h2 id="usage">Usage this month</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {usage && (
        <table data-testid="usage">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Quantity</th>
              <th scope="col">Amount</th>
            </tr>
          </thead>
          <tbody>
            {usage.kinds.map((kind) => (
              <tr>
                <th scope="row">{usageKinds[kind.kind]?.label ?? kind.kind}</th>
                <td>
                  {usageKinds[kind.kind]?.quantity(kind) ??
                    `${count(kind.count, "charge")} · ${kind.quantity} ${kind.unit}`}
                </td>
                <td>{money(kind.amount, usage.currency)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td>{count(usage.total.count, "charge")}</td>
              <td data-testid="usage-total">{money(usage.total.amount, usage.currency)}</td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}

/** The low-balance alert threshold (PUT /billing/wallet): the wallet turns Low below it; the API's errors beside it. */
function AlertThreshold({ wallet, onSaved }: { wallet: Wallet; onSaved: (wallet: Wallet) => void }) {
  const [value, setValue] = useState(String(Number(wallet.lowBalanceThreshold)));
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  async function save() {
    setSaved(null);
    const { data, error } = await api.PUT("/billing/wallet", { body: { lowBalanceThreshold: value.trim() } });
    if (!data) return setProblem(formProblem(error));
    setProblem(null);
    setSaved(`Saved: you are alerted below ${money(data.lowBalanceThreshold, data.currency)}.`);
    onSaved(data);
  }
  return (
    <section aria-labelledby="alert-threshold">
      <h2 id="alert-threshold">Low-balance alert</h2>
      <InlineForm problem={problem} onSubmit={() => void save()}>
        <TextField
          label={`Alert below (${wallet.currency})`}
          pointer="/lowBalanceThreshold"
          problem={problem}
          value={value}
          onValue={setValue}
          inputMode="decimal"
        />
        <button type="submit">Save threshold</button>
      </InlineForm>
      {saved && (
        <p role="status" data-testid="threshold-saved">
          {saved}
        </p>
      )}
    </section>
  );
}
