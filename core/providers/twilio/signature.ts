import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * X-Twilio-Signature: base64 HMAC-SHA1, keyed with the account auth token, of
 * the full URL followed by every POST parameter as name + value, names in
 * sorted order (a repeated name contributes each distinct value, sorted).
 * JSON webhooks sign the URL only and carry the body's SHA-256 (hex) in the
 * `bodySHA256` query parameter.
 */

/** The signature Twilio computes for a URL and its form parameters. */
export function twilioSignature(
  authToken: string,
  url: string,
  params: Iterable<readonly [string, string]> = [],
): string {
  const byName = new Map<string, Set<string>>();
  for (const [name, value] of params) {
    const values = byName.get(name) ?? new Set<string>();
    values.add(value);
    byName.set(name, values);
  }
  let data = url;
  for (const name of [...byName.keys()].sort()) {
    for (const value of [...(byName.get(name) ?? [])].sort()) data += name + value;
  }
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

function safeEqual(expected: string, actual: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(actual);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The URL as Twilio may have signed it: exactly as given, and with the default
 * port added or removed (load balancers and API Gateway differ on that). The
 * rest of the string is kept byte for byte: re-encoding it would change the signature.
 */
function urlVariants(url: string): string[] {
  const match = /^(https?):\/\/((?:[^@/?#]*@)?)([^/?#:]+)(?::(\d+))?(.*)$/is.exec(url);
  if (match === null) return [url];
  const [, scheme = "", userinfo = "", host = "", port, rest = ""] = match;
  const defaultPort = scheme.toLowerCase() === "https" ? "443" : "80";
  if (port !== undefined && port !== defaultPort) return [url];
  const prefix = `${scheme}://${userinfo}${host}`;
  return [...new Set([url, `${prefix}${rest}`, `${prefix}:${defaultPort}${rest}`])];
}

/** Validates a webhook signature for a form-encoded or JSON body, in constant time. */
export function verifyTwilioSignature(input: {
  authToken: string;
  url: string;
  body: string;
  signature: string | undefined;
  contentType?: string | undefined;
}): boolean {
  const { authToken, signature } = input;
  if (!signature || !authToken) return false;
  const isJson = (input.contentType ?? "").toLowerCase().includes("application/json");
  let params: [string, string][] = [];
  if (isJson) {
    let bodyHash: string | null;
    try {
      bodyHash = new URL(input.url).searchParams.get("bodySHA256");
    } catch {
      return false;
    }
    const actualHash = createHash("sha256").update(input.body, "utf8").digest("hex");
    if (bodyHash === null || !safeEqual(bodyHash.toLowerCase(), actualHash)) return false;
  } else {
    params = [...new URLSearchParams(input.body)];
  }
  return urlVariants(input.url).some((url) => safeEqual(twilioSignature(authToken, url, params), signature));
}
