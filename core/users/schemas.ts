import * as v from "valibot";
import { roles } from "#core/auth/actor";
import { maxChars } from "#core/shared/validation";
import { timestamp } from "#core/shared/ids";

export const userStatuses = ["Active", "Deactivated"] as const;
export type UserStatus = (typeof userStatuses)[number];

export const weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;

/** E-mail addresses are compared trimmed and lower-cased (one user per address). */
export const EmailSchema = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254, "Must be at most 254 characters."),
  v.email("Must be an e-mail address."),
);

const clock = v.pipe(v.string(), v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Must be HH:MM (24 h)."));

/** When the user takes leads and calls (the routing issue reads it), in their own time zone. */
export const WorkingHoursSchema = v.pipe(
  v.array(
    v.pipe(
      v.strictObject({ day: v.picklist(weekdays), start: clock, end: clock }),
      v.check((span) => span.start < span.end, "start must be before end."),
    ),
  ),
  v.maxLength(14),
);

export const RoleSchema = v.picklist(roles);

/** How an agent is told (core/alerts/index.ts): an SMS to their profile phone from the organization's number, an e-mail. */
export const alertChannels = ["sms", "email"] as const;
export type AlertChannel = (typeof alertChannels)[number];

const AlertChannelsSchema = v.pipe(
  v.array(v.picklist(alertChannels, 'Must be "sms" or "email".')),
  v.maxLength(2),
  v.check((channels) => new Set(channels).size === channels.length, "Name each channel once."),
  v.description("Empty: not told. `sms` needs a profile phone; nothing is sent while the user is away."),
);

/** What the user is told at once, and how: a lead assigned to them, a reply from a contact of a conversation of theirs. */
export const AlertPreferencesSchema = v.strictObject({
  newLead: AlertChannelsSchema,
  inboundReply: AlertChannelsSchema,
});
export type AlertPreferences = v.InferOutput<typeof AlertPreferencesSchema>;

/** A user who never chose is told by e-mail of both (an SMS needs the phone they may not have given). */
export const defaultAlerts: AlertPreferences = { newLead: ["email"], inboundReply: ["email"] };

export const UserSchema = v.object({
  id: v.string(),
  email: v.string(),
  name: v.string(),
  phone: v.pipe(v.nullable(v.string()), v.description("E.164; used for call bridging and alerts.")),
  timeZone: v.nullable(v.string()),
  workingHours: v.array(v.object({ day: v.picklist(weekdays), start: v.string(), end: v.string() })),
  alerts: AlertPreferencesSchema,
  role: RoleSchema,
  status: v.picklist(userStatuses),
  createdAt: timestamp,
  modifiedAt: v.nullable(timestamp),
});
export type User = v.InferOutput<typeof UserSchema>;

/** Body of `PUT /users/{id}/role`. */
export const ChangeRoleSchema = v.strictObject({ role: RoleSchema });

/** Body of `POST /invitations`. */
export const InvitationRequestSchema = v.strictObject({
  email: EmailSchema,
  role: v.optional(RoleSchema, "agent"),
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(200))),
  expiresInHours: v.pipe(
    v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(336)), 72),
    v.description("How long the link works, in hours (default 72, at most 14 days)."),
  ),
});
export type InvitationRequest = v.InferOutput<typeof InvitationRequestSchema>;

export const invitationStatuses = ["Pending", "Accepted", "Revoked", "Expired"] as const;

export const InvitationSchema = v.object({
  id: v.string(),
  email: v.string(),
  role: RoleSchema,
  status: v.picklist(invitationStatuses),
  invitedBy: v.string(),
  createdAt: timestamp,
  expiresAt: timestamp,
  acceptedAt: v.nullable(timestamp),
});
export type Invitation = v.InferOutput<typeof InvitationSchema>;

/** Body of `POST /invitations/accept`: the token from the invitation e-mail (never in a URL the API sees). */
export const AcceptInvitationSchema = v.strictObject({ token: v.pipe(v.string(), v.minLength(10), v.maxLength(200)) });
