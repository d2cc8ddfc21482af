import * as v from "valibot";
import { config } from "#core/config";
import { ConflictError, ForbiddenError, ValidationError } from "#core/errors";
import * as Organizations from "#core/organizations/index";
import { OrganizationSchema } from "#core/organizations/schemas";
import { TimeZoneSchema } from "#core/shared/validation";
import { maxChars } from "#core/shared/validation";
import { EmailSchema, UserSchema } from "#core/users/schemas";
import { userOfEmail } from "#core/users/store";
import { addUser } from "#core/users/team";

/** Body of `POST /organizations` (self-service sign-up). */
export const SignUpSchema = v.strictObject({
  organizationName: v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(200)),
  timeZone: v.optional(TimeZoneSchema),
});

export const SignedUpSchema = v.object({
  organization: OrganizationSchema,
  user: UserSchema,
});

/**
 * Creates an organization owned by the signed-in person, where the stage allows it (`SELF_SERVICE_SIGN_UP=true`;
 * off by default, when organizations come from the operator CLI). One organization per e-mail: an address that
 * already has a user is a 409.
 */
export async function signUp(
  identity: { email?: string; name?: string } | undefined,
  input: v.InferOutput<typeof SignUpSchema>,
) {
  if (!config.selfServiceSignUp)
    throw new ForbiddenError("Self-service sign-up is off on this stage: ask the operator for an organization.");
  const email = v.safeParse(EmailSchema, identity?.email ?? "");
  if (!email.success) throw new ValidationError("The access token carries no e-mail address to own the organization.");
  if (await userOfEmail(email.output)) throw new ConflictError(`${email.output} already belongs to a user.`);
  const { organization } = await Organizations.create({ name: input.organizationName, timeZone: input.timeZone });
  const user = await addUser(organization.id, { email: email.output, name: identity?.name, role: "owner" });
  return { organization, user };
}
