/**
 * Password rules (NIST SP 800-63B): at least 12 characters, at most 128, and not one of the passwords
 * every attacker tries first. No composition rules: length is what makes a password hard to guess.
 */
export const passwordLength = { min: 12, max: 128 } as const;

const common = new Set([
  "password1234",
  "123456789012",
  "qwertyuiopas",
  "passwordpassword",
  "iloveyou1234",
  "letmein12345",
  "welcome12345",
  "administrator",
  "changeme1234",
  "000000000000",
  "111111111111",
  "abcdefghijkl",
]);

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < passwordLength.min) return `Use at least ${passwordLength.min} characters.`;
  if (password.length > passwordLength.max) return `Use at most ${passwordLength.max} characters.`;
  if (common.has(password.toLowerCase()) || new Set(password).size < 4) return "This password is too easy to guess.";
  return undefined;
}
