import { createHmac, randomBytes } from "node:crypto";

/** A new Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/**
 * The `webhook-signature` header value of Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per
 * secret (the key is the base64 after `whsec_`), space-separated when a rotated-out secret still applies.
 */
export function signatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
      return `v1,${createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`).digest("base64")}`;
    })
    .join(" ");
}
