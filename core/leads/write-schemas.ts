import * as v from "valibot";
import * as f from "#core/leads/fields";
import { toIssuePath } from "#core/shared/validation";

/**
 * The lead's request schemas: its writable shape and the flat intake parameters. Apart from `schemas.ts` (the lead
 * as reads answer it) because they validate phone numbers: a module's top-level schemas stay in a bundle whenever
 * one of its exports is used, and these bring libphonenumber-js (~123 KB) into every function that only reads leads.
 */

const name = f.text(100);
const shortText = f.text(255);
const longText = f.text(2048);
const scalar = v.optional(v.nullable(v.union([v.string(), v.number()], "Must be a string or a number.")));

const sourceMetadataField = v.optional(
  v.pipe(
    v.unknown(),
    v.rawCheck(({ dataset, addIssue }) => {
      for (const error of f.checkSourceMetadata(dataset.value).errors) {
        const segments = error.pointer
          .split("/")
          .slice(1)
          .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
        addIssue({ message: error.detail, path: toIssuePath(dataset.value, segments) });
      }
    }),
    v.transform((value) => f.checkSourceMetadata(value).metadata),
    v.description(
      "Key-value data about the lead from the seller; echoed in responses, so only safe scalar values (docs/decisions.md).",
    ),
  ),
);

/** The lead's own writable shape (`POST /leads`), camelCase as in spec 2.4. */
export const LeadWriteSchema = v.strictObject({
  sourceId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  contact: v.optional(
    v.strictObject({
      firstName: name,
      lastName: name,
      email: f.email,
      phone: v.optional(v.nullable(v.strictObject({ number: f.phone, type: f.phoneType }))),
      streetAddress: v.optional(
        v.nullable(
          v.strictObject({ line1: shortText, line2: shortText, city: name, state: name, postalCode: f.postalCode }),
        ),
      ),
    }),
    {},
  ),
  customer: v.optional(
    v.strictObject({
      gender: v.optional(v.nullable(v.strictObject({ value: f.gender }))),
      height: scalar,
      weight: scalar,
      income: scalar,
      monthsAtResidence: f.count(1200),
      creditScore: f.count(900),
      numberOfDependents: f.count(50),
      birthDate: f.date,
      maritalStatus: v.optional(v.nullable(v.strictObject({ value: f.maritalStatus }))),
      isHomeowner: f.flag,
      hasBankruptcy: f.flag,
      hasMedicalCondition: f.flag,
      employmentType: v.optional(v.nullable(v.strictObject({ value: f.employmentType }))),
    }),
    {},
  ),
  metadata: v.optional(
    v.strictObject({
      certifiedFormUrl: f.url,
      jornayaLeadId: v.optional(
        v.pipe(
          f.text(100),
          v.description(
            "A Jornaya (Verisk) LeadiD token of the form session: kept as the lead's consent evidence, authenticated with Jornaya where the organization has a Jornaya account.",
          ),
        ),
      ),
      utmSource: shortText,
      utmMedium: shortText,
      utmCampaign: shortText,
      utmTerm: shortText,
      utmContent: shortText,
      referrer: longText,
      landingPage: longText,
      subId: shortText,
      pubId: shortText,
      ipAddress: f.ipAddress,
      userAgent: f.text(512),
      externalId: shortText,
      sellerLeadId: shortText,
      price: f.decimal,
      directPostPrice: f.decimal,
      product: f.text(100),
      vertical: f.text(100),
      sourceMetadata: sourceMetadataField,
    }),
    {},
  ),
});
export type LeadWrite = v.InferOutput<typeof LeadWriteSchema>;

/**
 * The flat parameters of `GET /leads/intake` (spec 4, endpoint 8), also the
 * JSON body of `POST /leads/intake`. Aliases: `DateOfBirth`/`BirthDate`,
 * `Zip`/`PostalCode`, `SellerLeadId`/`SellerLeadIdentifier` (both may be sent
 * when they agree). `SourceMetadata` is a JSON object (or its JSON text) or
 * bracketed keys: `SourceMetadata[campaign]=spring`.
 */
const flatFields = {
  FirstName: name,
  LastName: name,
  Email: f.email,
  Phone: f.phone,
  PhoneType: f.phoneType,
  DateOfBirth: f.date,
  BirthDate: f.date,
  Address1: shortText,
  Address2: shortText,
  City: name,
  State: name,
  Zip: f.postalCode,
  PostalCode: f.postalCode,
  Gender: f.gender,
  SubId: shortText,
  SellerLeadId: shortText,
  SellerLeadIdentifier: shortText,
  UtmSource: shortText,
  UtmMedium: shortText,
  UtmCampaign: shortText,
  UtmTerm: shortText,
  UtmContent: shortText,
  Product: f.text(100),
  Vertical: f.text(100),
  Referrer: longText,
  LandingPage: longText,
  CertifiedFormUrl: f.url,
  JornayaLeadId: v.optional(
    v.pipe(
      f.text(100),
      v.description(
        "A Jornaya LeadiD token: kept as consent evidence, authenticated with Jornaya where the organization has a Jornaya account.",
      ),
    ),
  ),
  ExternalId: shortText,
  DirectPostPrice: f.decimal,
  Price: f.decimal,
  SourceMetadata: v.optional(
    v.pipe(
      v.unknown(),
      v.description(
        "JSON object (or its JSON text), or bracketed keys SourceMetadata[key]=value; safe scalar values only.",
      ),
    ),
  ),
};

const aliases = [
  ["DateOfBirth", "BirthDate"],
  ["Zip", "PostalCode"],
  ["SellerLeadId", "SellerLeadIdentifier"],
] as const;

const bracketKey = /^SourceMetadata\[([^\]]*)\]$/;

type FlatOutput = { [K in keyof typeof flatFields]?: unknown };

/* @__NO_SIDE_EFFECTS__ */
function flatSchema<TExtra extends v.ObjectEntries>(extra: TExtra) {
  const known = new Set([...Object.keys(flatFields), ...Object.keys(extra)]);
  return v.pipe(
    v.looseObject({ ...flatFields, ...extra }),
    v.rawCheck(({ dataset, addIssue }) => {
      const input = dataset.value;
      if (input === null || typeof input !== "object") return;
      const record = input as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        if (known.has(key) || bracketKey.test(key)) continue;
        addIssue({
          message: `Unknown parameter ${JSON.stringify(key)}; parameter names are case-sensitive (e.g. FirstName, Phone).`,
          path: toIssuePath(record, [key]),
        });
      }
      const invalid = new Set((dataset.issues ?? []).map((issue) => issue.path?.[0]?.key));
      for (const [first, second] of aliases) {
        if (invalid.has(first) || invalid.has(second)) continue;
        if (record[first] !== undefined && record[second] !== undefined && record[first] !== record[second]) {
          addIssue({
            message: `${second} is an alias of ${first}; send one, or the same value in both.`,
            path: toIssuePath(record, [second]),
          });
        }
      }
      const merged = { SourceMetadata: mergedSourceMetadata(record) };
      for (const error of f.checkSourceMetadata(merged.SourceMetadata).errors) {
        addIssue({
          message: error.detail,
          path: toIssuePath(merged, ["SourceMetadata", ...error.pointer.split("/").slice(1)]),
        });
      }
    }),
    v.transform((output) => flatToLead(output as FlatOutput & Record<string, unknown>)),
  );
}

/** `SourceMetadata` (object or JSON text) merged with the bracketed `SourceMetadata[key]` parameters. */
function mergedSourceMetadata(record: Record<string, unknown>): unknown {
  const brackets = Object.entries(record).filter(([key]) => bracketKey.test(key));
  let base: unknown = record.SourceMetadata;
  if (typeof base === "string" && base.trim() !== "") {
    try {
      base = JSON.parse(base);
    } catch {
      return base;
    }
  }
  if (brackets.length === 0) return base;
  base ??= {};
  if (typeof base === "string") base = {};
  if (base === null || typeof base !== "object" || Array.isArray(base)) return base;
  return {
    ...(base as object),
    ...Object.fromEntries(brackets.map(([key, value]) => [bracketKey.exec(key)![1], value])),
  };
}

/** Maps validated flat parameters to the lead's writable shape. */
function flatToLead(flat: FlatOutput & Record<string, unknown>): LeadWrite {
  const s = (value: unknown) => value as string | undefined;
  const address = {
    line1: s(flat.Address1),
    line2: s(flat.Address2),
    city: s(flat.City),
    state: s(flat.State),
    postalCode: s(flat.Zip ?? flat.PostalCode),
  };
  return {
    contact: {
      firstName: s(flat.FirstName),
      lastName: s(flat.LastName),
      email: s(flat.Email),
      phone: flat.Phone ? { number: s(flat.Phone), type: flat.PhoneType as never } : undefined,
      streetAddress: Object.values(address).some((value) => value !== undefined) ? address : undefined,
    },
    customer: {
      birthDate: s(flat.DateOfBirth ?? flat.BirthDate),
      gender: flat.Gender ? { value: flat.Gender as never } : undefined,
    },
    metadata: {
      subId: s(flat.SubId),
      sellerLeadId: s(flat.SellerLeadId ?? flat.SellerLeadIdentifier),
      utmSource: s(flat.UtmSource),
      utmMedium: s(flat.UtmMedium),
      utmCampaign: s(flat.UtmCampaign),
      utmTerm: s(flat.UtmTerm),
      utmContent: s(flat.UtmContent),
      product: s(flat.Product),
      vertical: s(flat.Vertical),
      referrer: s(flat.Referrer),
      landingPage: s(flat.LandingPage),
      certifiedFormUrl: s(flat.CertifiedFormUrl),
      jornayaLeadId: s(flat.JornayaLeadId),
      externalId: s(flat.ExternalId),
      directPostPrice: s(flat.DirectPostPrice),
      price: s(flat.Price),
      sourceMetadata: f.checkSourceMetadata(mergedSourceMetadata(flat)).metadata,
    },
  } as LeadWrite;
}

/** Query of `GET /leads/intake`: the flat lead parameters plus the source credentials. */
export const IntakeQuerySchema = flatSchema({
  sourceId: v.optional(v.pipe(v.string(), v.description("The source identifier (source credential)."))),
  apiKey: v.optional(v.pipe(v.string(), v.description("The source key (source credential)."))),
});

/** Body of `POST /leads/intake`: the same flat fields as JSON. */
export const IntakeBodySchema = flatSchema({});
