import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/core";
import { phoneMetadata } from "./phone-metadata.ts";

/**
 * Phone numbers: E.164 normalisation (libphonenumber-js with its "min" metadata:
 * each country's number pattern and lengths, ~75 KB lighter than "max", whose
 * per-line-type ranges only refine which numbers are valid and which line type
 * they are; read from a file on first use, see phone-metadata.ts), area codes,
 * and the recipient's IANA time zone used by quiet hours.
 */

export const DEFAULT_COUNTRY: CountryCode = "US";

/** What we know about a valid number. */
export type PhoneDetails = {
  /** "+12015550100" */
  e164: string;
  /** ISO 3166 region of the number ("US", "CA", "PR"...), when known. */
  country: CountryCode | undefined;
  /** Country calling code without "+" ("1"). */
  countryCallingCode: string;
  /** Significant national number ("2015550100"). */
  nationalNumber: string;
  /** NANP area code (first three national digits) for +1 numbers. */
  areaCode: string | undefined;
  /** A NANP toll-free number (+1 8XX: 800, 833, 844, 855, 866, 877, 888), which carriers pace apart from long codes. */
  tollFree: boolean;
};

/** NANP toll-free area codes (the min metadata has no line types, and these are the only ones pacing needs). */
const tollFreeAreaCodes = new Set(["800", "833", "844", "855", "866", "877", "888"]);

/**
 * Undoes URL encoding of a phone number taken from a path or query
 * ("%2B1201..." → "+1201..."). A "+" that form decoding turned into a leading
 * space is restored; malformed escapes leave the input as it was.
 */
export function decodePhoneInput(raw: string): string {
  let text = raw;
  if (/%[0-9a-f]{2}/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      // not valid percent-encoding: keep the raw text and let parsing decide
    }
  }
  if (/^ +\d[\d ().-]*$/.test(text)) text = `+${text.trimStart()}`;
  return text.trim();
}

/** Parses any common written form; undefined unless the number is valid. */
export function parsePhone(raw: string, defaultCountry: CountryCode = DEFAULT_COUNTRY): PhoneDetails | undefined {
  const parsed = parsePhoneNumberFromString(decodePhoneInput(raw), defaultCountry, phoneMetadata());
  if (!parsed?.isValid()) return undefined;
  const nanp = parsed.countryCallingCode === "1";
  return {
    e164: parsed.number,
    country: parsed.country,
    countryCallingCode: parsed.countryCallingCode,
    nationalNumber: parsed.nationalNumber,
    areaCode: nanp ? parsed.nationalNumber.slice(0, 3) : undefined,
    tollFree: nanp && tollFreeAreaCodes.has(parsed.nationalNumber.slice(0, 3)),
  };
}

/** The E.164 form of a valid number, or undefined. */
export function toE164(raw: string, defaultCountry: CountryCode = DEFAULT_COUNTRY): string | undefined {
  return parsePhone(raw, defaultCountry)?.e164;
}

/** True when the input is a valid number (after URL decoding). */
export function isValidPhone(raw: string, defaultCountry: CountryCode = DEFAULT_COUNTRY): boolean {
  return parsePhone(raw, defaultCountry) !== undefined;
}

/**
 * Area codes of the US, Canada and the US territories by IANA zone. Built from
 * the prefix → zone data that Google's libphonenumber publishes
 * (resources/timezones/map_data.txt), one zone per area code: where an area
 * code spans two zones the zone of most of its subscribers is taken (219 and
 * 270 Central, 423 Eastern, 208 Mountain, 605/701 Central), plus area codes
 * opened since that data. Canadian zones use the provincial zone (Saskatchewan
 * keeps standard time all year: America/Regina). Toll-free and
 * non-geographic codes (800, 833, 5XX, 600...) have no zone.
 */
const AREA_CODES_BY_ZONE: Record<string, string> = {
  "America/New_York":
    "201 202 203 207 212 215 216 220 223 227 229 231 234 239 240 248 252 260 267 269 272 276 283 301 302 304 305 " +
    "313 315 317 321 324 326 329 330 332 336 339 347 351 352 363 380 386 401 404 407 410 412 413 419 423 434 440 " +
    "443 445 448 463 470 472 475 478 484 502 508 513 516 517 518 540 551 561 567 570 571 574 582 585 586 603 606 " +
    "607 609 610 614 616 617 631 640 645 646 656 667 678 680 681 686 689 703 704 706 716 717 718 724 727 728 732 " +
    "734 740 743 754 757 762 765 770 771 772 774 781 786 802 803 804 810 812 813 814 821 826 828 835 838 839 843 " +
    "845 848 850 854 856 857 859 860 862 863 864 865 878 904 906 908 910 912 914 917 919 929 930 934 937 941 943 " +
    "947 948 954 959 973 978 980 984 989",
  "America/Chicago":
    "205 210 214 217 218 219 224 225 228 235 251 254 256 262 270 274 281 308 309 312 314 316 318 319 320 325 327 " +
    "331 334 337 346 353 361 364 402 405 409 414 417 430 432 447 464 469 479 501 504 507 512 515 531 534 539 557 " +
    "563 572 573 580 601 605 608 612 615 618 620 629 630 636 641 651 659 660 662 682 701 708 712 713 715 726 730 " +
    "731 737 763 769 773 779 785 806 815 816 817 830 832 847 870 872 901 903 913 918 920 931 936 938 940 945 952 " +
    "956 972 975 979 985",
  "America/Denver": "303 307 385 406 435 505 575 719 720 748 801 915 970 983",
  "America/Boise": "208 986",
  "America/Phoenix": "480 520 602 623 928",
  "America/Los_Angeles":
    "206 209 213 253 279 310 323 341 350 360 369 408 415 424 425 442 458 503 509 510 530 541 559 562 564 619 626 " +
    "628 650 657 661 669 702 707 714 725 738 747 760 775 805 818 820 831 840 858 909 916 925 949 951 971",
  "America/Anchorage": "907",
  "Pacific/Honolulu": "808",
  "America/Puerto_Rico": "787 939",
  "America/St_Thomas": "340",
  "Pacific/Guam": "671",
  "Pacific/Saipan": "670",
  "Pacific/Pago_Pago": "684",
  "America/Toronto":
    "226 249 263 273 289 343 354 365 367 382 416 418 437 438 450 468 514 519 548 579 581 613 647 683 705 742 753 807 819 873 905 942",
  "America/Winnipeg": "204 431 584",
  "America/Regina": "306 474 639",
  "America/Edmonton": "368 403 587 780 825 867",
  "America/Vancouver": "236 250 257 604 672 778",
  "America/Halifax": "428 506 782 902",
  "America/St_Johns": "709 879",
};

const zoneByAreaCode = new Map<string, string>(
  Object.entries(AREA_CODES_BY_ZONE).flatMap(([zone, codes]) =>
    codes.split(" ").map((code): [string, string] => [code, zone]),
  ),
);

/** Every area code the table knows, for completeness checks. */
export function knownAreaCodes(): string[] {
  return [...zoneByAreaCode.keys()];
}

/** IANA zone of a US/CA/territory area code ("212" → "America/New_York"). */
export function areaCodeTimeZone(areaCode: string): string | undefined {
  return zoneByAreaCode.get(areaCode);
}

/**
 * US states, DC, territories and Canadian provinces → the zone of most of
 * their population (Texas and Tennessee Central, Florida, Michigan, Indiana and
 * Kentucky Eastern, Idaho Mountain, Arizona without DST).
 */
const REGIONS: Record<string, { name: string; zone: string }> = {
  AL: { name: "Alabama", zone: "America/Chicago" },
  AK: { name: "Alaska", zone: "America/Anchorage" },
  AZ: { name: "Arizona", zone: "America/Phoenix" },
  AR: { name: "Arkansas", zone: "America/Chicago" },
  CA: { name: "California", zone: "America/Los_Angeles" },
  CO: { name: "Colorado", zone: "America/Denver" },
  CT: { name: "Connecticut", zone: "America/New_York" },
  DE: { name: "Delaware", zone: "America/New_York" },
  DC: { name: "District of Columbia", zone: "America/New_York" },
  FL: { name: "Florida", zone: "America/New_York" },
  GA: { name: "Georgia", zone: "America/New_York" },
  HI: { name: "Hawaii", zone: "Pacific/Honolulu" },
  ID: { name: "Idaho", zone: "America/Boise" },
  IL: { name: "Illinois", zone: "America/Chicago" },
  IN: { name: "Indiana", zone: "America/New_York" },
  IA: { name: "Iowa", zone: "America/Chicago" },
  KS: { name: "Kansas", zone: "America/Chicago" },
  KY: { name: "Kentucky", zone: "America/New_York" },
  LA: { name: "Louisiana", zone: "America/Chicago" },
  ME: { name: "Maine", zone: "America/New_York" },
  MD: { name: "Maryland", zone: "America/New_York" },
  MA: { name: "Massachusetts", zone: "America/New_York" },
  MI: { name: "Michigan", zone: "America/New_York" },
  MN: { name: "Minnesota", zone: "America/Chicago" },
  MS: { name: "Mississippi", zone: "America/Chicago" },
  MO: { name: "Missouri", zone: "America/Chicago" },
  MT: { name: "Montana", zone: "America/Denver" },
  NE: { name: "Nebraska", zone: "America/Chicago" },
  NV: { name: "Nevada", zone: "America/Los_Angeles" },
  NH: { name: "New Hampshire", zone: "America/New_York" },
  NJ: { name: "New Jersey", zone: "America/New_York" },
  NM: { name: "New Mexico", zone: "America/Denver" },
  NY: { name: "New York", zone: "America/New_York" },
  NC: { name: "North Carolina", zone: "America/New_York" },
  ND: { name: "North Dakota", zone: "America/Chicago" },
  OH: { name: "Ohio", zone: "America/New_York" },
  OK: { name: "Oklahoma", zone: "America/Chicago" },
  OR: { name: "Oregon", zone: "America/Los_Angeles" },
  PA: { name: "Pennsylvania", zone: "America/New_York" },
  RI: { name: "Rhode Island", zone: "America/New_York" },
  SC: { name: "South Carolina", zone: "America/New_York" },
  SD: { name: "South Dakota", zone: "America/Chicago" },
  TN: { name: "Tennessee", zone: "America/Chicago" },
  TX: { name: "Texas", zone: "America/Chicago" },
  UT: { name: "Utah", zone: "America/Denver" },
  VT: { name: "Vermont", zone: "America/New_York" },
  VA: { name: "Virginia", zone: "America/New_York" },
  WA: { name: "Washington", zone: "America/Los_Angeles" },
  WV: { name: "West Virginia", zone: "America/New_York" },
  WI: { name: "Wisconsin", zone: "America/Chicago" },
  WY: { name: "Wyoming", zone: "America/Denver" },
  PR: { name: "Puerto Rico", zone: "America/Puerto_Rico" },
  VI: { name: "U.S. Virgin Islands", zone: "America/St_Thomas" },
  GU: { name: "Guam", zone: "Pacific/Guam" },
  MP: { name: "Northern Mariana Islands", zone: "Pacific/Saipan" },
  AS: { name: "American Samoa", zone: "Pacific/Pago_Pago" },
  AB: { name: "Alberta", zone: "America/Edmonton" },
  BC: { name: "British Columbia", zone: "America/Vancouver" },
  MB: { name: "Manitoba", zone: "America/Winnipeg" },
  NB: { name: "New Brunswick", zone: "America/Halifax" },
  NL: { name: "Newfoundland and Labrador", zone: "America/St_Johns" },
  NS: { name: "Nova Scotia", zone: "America/Halifax" },
  NT: { name: "Northwest Territories", zone: "America/Edmonton" },
  NU: { name: "Nunavut", zone: "America/Toronto" },
  ON: { name: "Ontario", zone: "America/Toronto" },
  PE: { name: "Prince Edward Island", zone: "America/Halifax" },
  QC: { name: "Quebec", zone: "America/Toronto" },
  SK: { name: "Saskatchewan", zone: "America/Regina" },
  YT: { name: "Yukon", zone: "America/Whitehorse" },
};

const zoneByRegionName = new Map(
  Object.values(REGIONS).map(({ name, zone }): [string, string] => [name.toUpperCase(), zone]),
);

/** Zone of a US state / Canadian province, by code ("tx") or name ("Texas"). */
export function regionTimeZone(region: string): string | undefined {
  const key = region.trim().replace(/\s+/g, " ").toUpperCase();
  return REGIONS[key]?.zone ?? zoneByRegionName.get(key);
}

/** Where a resolved time zone came from, most specific first. */
export type TimeZoneSource = "AreaCode" | "State" | "Organization";

/**
 * The recipient's time zone: the number's area code, else the lead's state,
 * else the organization's zone (always given, so there is always an answer).
 */
export function recipientTimeZone(input: {
  phone?: string | undefined;
  state?: string | undefined;
  organizationTimeZone: string;
}): { timeZone: string; source: TimeZoneSource } {
  const areaCode = input.phone === undefined ? undefined : parsePhone(input.phone)?.areaCode;
  const byAreaCode = areaCode === undefined ? undefined : areaCodeTimeZone(areaCode);
  if (byAreaCode !== undefined) return { timeZone: byAreaCode, source: "AreaCode" };
  const byState = input.state === undefined ? undefined : regionTimeZone(input.state);
  if (byState !== undefined) return { timeZone: byState, source: "State" };
  return { timeZone: input.organizationTimeZone, source: "Organization" };
}
