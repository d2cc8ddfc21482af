import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import { Field, ProblemSummary } from "../forms/Field";
import { errorsAt, formProblem, type FormProblem } from "../forms/problem";
import { money } from "../money";

/** The top-up this tab sent to the payment page, read again when the payer comes back (the page is another site). */
const pendingKey = "pendingTopUp";

/**
 * "Add funds": starts a top-up (POST /billing/wallet/top-ups) and sends the payer to its payment page; back here it
 * follows the top-up until the provider's payment event has credited the wallet, then asks the page to reload.
 */
export function AddFunds({ currency, onCredited }: { currency: string; onCredited: () => void }) {
  const [amount, setAmount] = useState("");
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);

  useEffect(() => {
    const topUpId = sessionStorage.getItem(pendingKey);
    if (!topUpId) return;
    setOutcome("Waiting for the payment to be confirmed…");
    let stopped = false;
    // The wallet is credited by the provider's signed event, which may land a moment after the payer is back.
    const follow = async (attempt: number) => {
      const { data } = await api.GET("/billing/wallet/top-ups/{topUpId}", { params: { path: { topUpId } } });
      if (stopped) return;
      if (data && data.status !== "Pending") {
        sessionStorage.removeItem(pendingKey);
        setOutcome(
          data.status === "Succeeded"
            ? `Payment received: ${money(data.amount, data.currency)} added.`
            : `The payment ended ${data.status}; nothing was added.`,
        );
        onCredited();
      } else if (attempt < 60) setTimeout(() => void follow(attempt + 1), 1000);
      else setOutcome("The payment is not confirmed yet; this page shows it once it is.");
    };
    void follow(0);
    return () => {
      stopped = true;
    };
  }, []);

  async function start() {
    setBusy(true);
    const back = `${location.origin}${location.pathname}#/billing`;
    const { data, error } = await api.POST("/billing/wallet/top-ups", {
      params: { header: { "Idempotency-Key": crypto.randomUUID() } },
      body: { amount: amount.trim(), successUrl: back, cancelUrl: back },
    });
    setBusy(false);
    if (!data?.checkoutUrl) return setProblem(formProblem(error));
    sessionStorage.setItem(pendingKey, data.id);
    location.assign(data.checkoutUrl);
  }

  return (
    <section aria-labelledby="add-funds">
      <h2 id="add-funds">Add funds</h2>
      {outcome && (
        <p role="status" data-testid="top-up-outcome">
          {outcome}
        </p>
      )}
      {problem && problem.errors.length === 0 && <ProblemSummary detail={problem.detail} errors={[]} />}
      <form
        class="inline-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <Field
          label={`Amount (${currency})`}
          pointer="/amount"
          errors={errorsAt(problem, "/amount")}
          hint="Paid by card on the payment page; credited once the payment is confirmed."
        >
          {(control) => (
            <input
              {...control}
              inputMode="decimal"
              placeholder="25.00"
              value={amount}
              onInput={(event) => setAmount(event.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={busy}>
          Add funds
        </button>
      </form>
    </section>
  );
}
