import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A new random secret, URL-safe. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** Keys are stored only as this hash; the plain value is shown once at creation. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

/** Constant-time string comparison for signatures and key hashes. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
