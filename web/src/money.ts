/**
 * An amount as the API states it (a decimal string, "4.7600" or "-0.0079") shown as money: "$4.76", "-$0.0079".
 * At least cents, and the sub-cent digits a price really has (an SMS segment costs less than a cent), never rounded away.
 */
export function money(amount: string, currency = "USD"): string {
  const fraction = amount.split(".")[1]?.replace(/0+$/, "") ?? "";
  const digits = Math.min(Math.max(fraction.length, 2), 6);
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(Number(amount));
}
