import { describe, expect, it } from "vitest";
import { intakeByBody, intakeByQuery, newSource, uniqueEmail, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization, request } from "#tests/helpers/stack";
import { validCertificate } from "#tests/helpers/consent";

const pointers = (body: { errors?: { pointer: string }[] }) => (body.errors ?? []).map((error) => error.pointer).sort();

describe("GET /leads/intake", () => {
  it("stores the lead from flat parameters, normalised, and answers 201 Pending", async () => {
    const org = await newOrganization();
    const source = await newSource(org, { vertical: "Insurance", defaultPrice: "5.00" });
    const response = await intakeByQuery(source, {
      FirstName: "Ada",
      LastName: "Lovelace",
      Email: "Ada.Lovelace@Example.COM",
      Phone: "(201) 555-0123",
      PhoneType: "cell",
      DateOfBirth: "12/10/1990",
      Address1: "1 Main St",
      City: "Hoboken",
      State: "NJ",
      Zip: "07030",
      Gender: "f",
      SubId: "sub-7",
      SellerLeadId: "S-1",
      UtmSource: "google",
      UtmCampaign: "spring",
      Product: "Auto",
      CertifiedFormUrl: "https://cert.example.com/abc",
      ExternalId: "X-1",
      Price: "0.10",
      DirectPostPrice: "12.345",
      "SourceMetadata[campaign]": "spring",
      "SourceMetadata[adGroup]": "7",
    });
    expect(response.status).toBe(201);
    const lead = response.body;
    expect(lead).toMatchObject({
      id: expect.any(String),
      sourceId: source.sourceId,
      processingStatus: "Pending",
      modifiedAt: null,
      contact: {
        firstName: "Ada",
        lastName: "Lovelace",
        email: "ada.lovelace@example.com",
        phone: { number: "+12015550123", type: "Mobile", countryCode: "US" },
        streetAddress: { line1: "1 Main St", line2: null, city: "Hoboken", state: "NJ", postalCode: "07030" },
      },
      customer: { birthDate: "1990-12-10", gender: { value: "Female" } },
      metadata: {
        price: "0.10",
        directPostPrice: "12.345",
        vertical: "Insurance",
        product: "Auto",
        subId: "sub-7",
        sellerLeadId: "S-1",
        externalId: "X-1",
        utmSource: "google",
        utmCampaign: "spring",
        sourceMetadata: { campaign: "spring", adGroup: "7" },
        businessId: org.organizationId,
        createdAt: lead.createdAt,
      },
    });
    expect(lead.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(response.headers.get("ratelimit-policy")).toMatch(/^"intake";/);

    const read = await org.request("GET", `/leads/${lead.id}`);
    expect(read.status).toBe(200);
    expect(read.body.metadata.price).toBe("0.10");
  });

  it("processes the lead after the answer: Processed, compliance allowed, consent from the verified certificate", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    // TrustedForm (the local fake) answers "valid" for this certificate of this phone: only a verified certificate opts in.
    const created = await intakeByQuery(source, { Phone: phone, CertifiedFormUrl: await validCertificate(org, phone) });
    const lead = await waitForLead(org, created.body.id);
    expect(lead).toMatchObject({
      processingStatus: "Processed",
      processingReason: null,
      processedAt: expect.any(String),
      modifiedAt: expect.any(String),
      metadata: {
        complianceStatus: "Allowed",
        complianceBlockedReason: null,
        smsConsentStatus: "OptedIn",
        smsOptedOut: false,
        smsOptInAt: expect.any(String),
        smsConsentPhoneNumber: lead.contact.phone.number,
      },
    });
  });

  it("accepts the aliases BirthDate, PostalCode and SellerLeadIdentifier, and SourceMetadata as JSON", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const response = await intakeByQuery(source, {
      Phone: "+1 201 555 0124",
      BirthDate: "1985-02-28",
      PostalCode: "07030-1234",
      SellerLeadIdentifier: "SLI-9",
      SourceMetadata: JSON.stringify({ campaign: "fall", clicks: 3, organic: false }),
    });
    expect(response.status).toBe(201);
    expect(response.body.customer.birthDate).toBe("1985-02-28");
    expect(response.body.contact.streetAddress.postalCode).toBe("07030-1234");
    expect(response.body.metadata.sellerLeadId).toBe("SLI-9");
    expect(response.body.metadata.sourceMetadata).toEqual({ campaign: "fall", clicks: 3, organic: false });
  });

  it("refuses bad input with one 400 listing every offending parameter", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const response = await intakeByQuery(source, {
      Email: "not-an-email",
      Phone: "12345",
      PhoneType: "pager",
      DateOfBirth: "2023-02-30",
      BirthDate: "2099-01-01",
      Zip: "07030",
      PostalCode: "10001",
      Price: "1,50",
      DirectPostPrice: "01.5",
      Gender: "q",
      CertifiedFormUrl: "javascript:alert(1)",
      FavouriteColour: "blue",
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(pointers(response.body)).toEqual(
      [
        "/query/BirthDate",
        "/query/CertifiedFormUrl",
        "/query/DateOfBirth",
        "/query/DirectPostPrice",
        "/query/Email",
        "/query/FavouriteColour",
        "/query/Gender",
        "/query/Phone",
        "/query/PhoneType",
        "/query/PostalCode",
        "/query/Price",
      ].sort(),
    );
  });

  it("refuses SourceMetadata that would be unsafe to echo: markup, credentials, nesting, odd keys", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const response = await intakeByQuery(source, {
      Phone: uniquePhone(),
      "SourceMetadata[note]": "<script>alert(1)</script>",
      "SourceMetadata[password]": "hunter2",
      "SourceMetadata[1bad]": "x",
    });
    expect(response.status).toBe(400);
    expect(pointers(response.body)).toEqual([
      "/query/SourceMetadata/1bad",
      "/query/SourceMetadata/note",
      "/query/SourceMetadata/password",
    ]);
    const nested = await intakeByQuery(source, { SourceMetadata: JSON.stringify({ deep: { a: 1 } }) });
    expect(pointers(nested.body)).toEqual(["/query/SourceMetadata/deep"]);
    const notJson = await intakeByQuery(source, { SourceMetadata: "{oops" });
    expect(pointers(notJson.body)).toEqual(["/query/SourceMetadata"]);
  });

  it("treats empty parameters as absent", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const response = await intakeByQuery(source, { Phone: uniquePhone(), Email: "", Price: "", DateOfBirth: "" });
    expect(response.status).toBe(201);
    expect(response.body.contact.email).toBeNull();
    expect(response.body.metadata.price).toBeNull();
  });

  it("answers 401 on the IP partition for missing, partial, wrong or foreign source credentials", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const cases = [
      "/leads/intake?Phone=2015550123",
      `/leads/intake?sourceId=${source.sourceId}&Phone=2015550123`,
      `/leads/intake?sourceId=${source.sourceId}&apiKey=lk_nope&Phone=2015550123`,
      `/leads/intake?sourceId=01ARZ3NDEKTSV4RRFFQ69G5FAV&apiKey=${encodeURIComponent(source.apiKey)}`,
    ];
    for (const path of cases) {
      const response = await request("GET", path);
      expect(response.status, path).toBe(401);
      expect(response.headers.get("ratelimit-policy"), path).toMatch(/^"ip";/);
      expect(response.headers.get("www-authenticate"), path).toMatch(/^Bearer /);
    }
  });

  it("also accepts a Bearer credential of the organization", async () => {
    const org = await newOrganization();
    const response = await org.request("GET", `/leads/intake?Phone=2015550125&FirstName=Grace`, { token: org.apiKey });
    expect(response.status).toBe(201);
    expect(response.body.sourceId).toBeNull();
    expect(response.headers.get("ratelimit-policy")).toMatch(/^"business";/);
  });
});

describe("POST /leads/intake", () => {
  const body = {
    FirstName: "Alan",
    Phone: "201-555-0126",
    Email: "alan@example.com",
    Price: "0.10",
    SourceMetadata: { campaign: "winter" },
  };

  it("takes the flat fields as JSON with the source key in X-Source-Id / X-Source-Key", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const response = await intakeByBody(source, body);
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      sourceId: source.sourceId,
      processingStatus: "Pending",
      contact: { phone: { number: "+12015550126" }, email: "alan@example.com" },
      metadata: { price: "0.10", sourceMetadata: { campaign: "winter" } },
    });
    expect(response.headers.get("ratelimit-policy")).toMatch(/^"intake";/);
  });

  it("takes the source key in the query too", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const query = new URLSearchParams({ sourceId: source.sourceId, apiKey: source.apiKey });
    const response = await request("POST", `/leads/intake?${query}`, { body });
    expect(response.status).toBe(201);
    expect(response.body.sourceId).toBe(source.sourceId);
  });

  it("accepts JSON numbers for prices and postal codes and keeps prices as exact decimal strings", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const response = await intakeByBody(source, { Phone: uniquePhone(), Price: 12.5, Zip: 7030 });
    expect(response.status).toBe(201);
    expect(response.body.metadata.price).toBe("12.5");
  });

  it("lists every offending body field in one 400", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const response = await intakeByBody(source, {
      Phone: "nope",
      Price: "1e3",
      Email: ["x"],
      apiKey: "in-the-body",
      SourceMetadata: "[1]",
    });
    expect(response.status).toBe(400);
    expect(pointers(response.body)).toEqual(["/Email", "/Phone", "/Price", "/SourceMetadata", "/apiKey"]);
  });

  it("refuses a body that is not JSON with a 400 and a non-JSON media type with 415", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    expect((await intakeByBody(source, "{not json", { "content-type": "application/json" })).status).toBe(400);
    expect(
      (await intakeByBody(source, "Phone=1", { "content-type": "application/x-www-form-urlencoded" })).status,
    ).toBe(415);
  });
});

describe("POST /leads", () => {
  it("creates a lead from its own camelCase shape with a Bearer credential", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const response = await org.request("POST", "/leads", {
      token: org.memberToken,
      body: {
        sourceId: source.sourceId,
        contact: {
          firstName: "Grace",
          lastName: "Hopper",
          email: "GRACE@example.com",
          phone: { number: "2015550127", type: "landline" },
          streetAddress: { city: "Arlington", state: "VA" },
        },
        customer: {
          birthDate: "1906-12-09",
          creditScore: 720,
          isHomeowner: true,
          maritalStatus: { value: "married" },
          employmentType: { value: "Self-Employed" },
          income: "85000",
        },
        metadata: {
          utmSource: "newsletter",
          price: "19.99",
          pubId: "p1",
          ipAddress: "203.0.113.5",
          sourceMetadata: { tier: "gold" },
        },
      },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      sourceId: source.sourceId,
      contact: {
        email: "grace@example.com",
        phone: { number: "+12015550127", type: "Landline" },
        streetAddress: { city: "Arlington", state: "VA", line1: null },
      },
      customer: {
        birthDate: "1906-12-09",
        creditScore: 720,
        isHomeowner: true,
        maritalStatus: { value: "Married" },
        employmentType: { value: "SelfEmployed" },
        income: "85000",
      },
      metadata: {
        utmSource: "newsletter",
        price: "19.99",
        pubId: "p1",
        ipAddress: "203.0.113.5",
        userId: org.userIds.agent,
      },
    });
    expect(response.headers.get("ratelimit-policy")).toMatch(/^"business";/);
  });

  it("refuses read-only fields, unknown sources and bad nested values with the JSON pointers", async () => {
    const org = await newOrganization();
    const response = await org.request("POST", "/leads", {
      body: {
        contact: { phone: { number: "x" }, email: "nope" },
        customer: { birthDate: "1990-13-01", creditScore: 1000 },
        metadata: { complianceStatus: "Allowed", price: "-", sourceMetadata: { apiKey: "secret" } },
      },
    });
    expect(response.status).toBe(400);
    expect(pointers(response.body)).toEqual(
      [
        "/contact/email",
        "/contact/phone/number",
        "/customer/birthDate",
        "/customer/creditScore",
        "/metadata/complianceStatus",
        "/metadata/price",
        "/metadata/sourceMetadata/apiKey",
      ].sort(),
    );
    const unknownSource = await org.request("POST", "/leads", {
      body: { sourceId: "01ARZ3NDEKTSV4RRFFQ69G5FAV", contact: { email: uniqueEmail() } },
    });
    expect(unknownSource.status).toBe(400);
    expect(pointers(unknownSource.body)).toEqual(["/sourceId"]);
  });

  it("accepts a source key, which posts into its own source only", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const other = await newSource(org);
    const headers = { "x-source-id": source.sourceId, "x-source-key": source.apiKey };
    const own = await request("POST", "/leads", { headers, body: { contact: { email: uniqueEmail() } } });
    expect(own.status).toBe(201);
    expect(own.body.sourceId).toBe(source.sourceId);
    const foreign = await request("POST", "/leads", {
      headers,
      body: { sourceId: other.sourceId, contact: { email: uniqueEmail() } },
    });
    expect(foreign.status).toBe(403);
  });

  it("refuses a source key on routes other than intake", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const headers = { "x-source-id": source.sourceId, "x-source-key": source.apiKey };
    expect((await request("POST", "/leads/all/my", { headers, body: {} })).status).toBe(401);
    expect((await request("GET", `/sources/${source.sourceId}`, { headers })).status).toBe(401);
  });
});

describe("retries", () => {
  it("replays an intake with the same Idempotency-Key and refuses the key with another payload", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    const first = await intakeByBody(source, { Phone: phone }, { "idempotency-key": "post-1" });
    const again = await intakeByBody(source, { Phone: phone }, { "idempotency-key": "post-1" });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const changed = await intakeByBody(source, { Phone: uniquePhone() }, { "idempotency-key": "post-1" });
    expect(changed.status).toBe(422);
    const viaQuery = await intakeByQuery(source, { Phone: phone }, { "idempotency-key": "get-1" });
    const viaQueryAgain = await intakeByQuery(source, { Phone: phone }, { "idempotency-key": "get-1" });
    expect(viaQueryAgain.body.id).toBe(viaQuery.body.id);
  });

  it("answers a seller's repeat of the same SellerLeadId from the same source with the original lead", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const first = await intakeByQuery(source, { Phone: uniquePhone(), SellerLeadId: "R-1" });
    const repeat = await intakeByQuery(source, { Phone: uniquePhone(), SellerLeadId: "R-1" });
    expect(first.status).toBe(201);
    expect(repeat.status).toBe(200);
    expect(repeat.body.id).toBe(first.body.id);
    const byExternal = await intakeByBody(source, { Email: uniqueEmail(), ExternalId: "E-1" });
    const byExternalAgain = await intakeByBody(source, { Email: uniqueEmail(), ExternalId: "E-1" });
    expect(byExternalAgain.status).toBe(200);
    expect(byExternalAgain.body.id).toBe(byExternal.body.id);
    // Another source may use the same seller id for its own lead.
    const otherSource = await newSource(org);
    expect((await intakeByQuery(otherSource, { Phone: uniquePhone(), SellerLeadId: "R-1" })).status).toBe(201);
  });

  it("creates one lead when the same seller post arrives many times at once", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => intakeByQuery(source, { Phone: phone, SellerLeadId: "SAME" })),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(1);
    expect(responses.every((response) => response.status === 201 || response.status === 200)).toBe(true);
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    const listed = await org.request("POST", "/leads/all/my", { body: { includeCount: true } });
    expect(listed.body.totalCount).toBe(1);
  });
});

describe("tenant isolation", () => {
  it("never shows one organization's lead to another, by id or by list", async () => {
    const a = await newOrganization();
    const b = await newOrganization();
    const source = await newSource(a);
    const created = await intakeByQuery(source, { Phone: uniquePhone() });
    expect((await b.request("GET", `/leads/${created.body.id}`)).status).toBe(404);
    const listed = await b.request("POST", "/leads/all/my", { body: { includeCount: true } });
    expect(listed.body).toMatchObject({ items: [], totalCount: 0 });
    const bySource = await b.request("POST", "/leads/all/my", {
      body: { filters: [{ field: "sourceId", value: source.sourceId }] },
    });
    expect(bySource.body.items).toEqual([]);
  });
});
