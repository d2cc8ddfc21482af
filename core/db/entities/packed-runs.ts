import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { StoredRun } from "#core/automations/runs/model";
import { withoutKeys } from "#core/db/indexes";

/** A run's item (`AutomationRunEntity`'s, its fields as attributes) with its fields packed instead. */
export function packedRunItem(item: Record<string, unknown>, run: StoredRun): Record<string, unknown> {
  const indexed = Object.fromEntries(Object.entries(item).filter(([name]) => !(name in run)));
  return { ...indexed, ...packedFields(run) };
}

/**
 * The run's fields as stored (issue 27): the ones something reads from the item itself stay attributes of their own
 * (`id`, projected into the active index; `status`, projected into the due index and read by the sweep; `rev`, every
 * write's condition; `dueAt`, moved by the sweep's claim); the organization and automation are read from the key;
 * every other field (the step log, the trigger, the cursor and lease…) is one JSON document deflated with
 * `packedDictionary`, in `packed`. A run item was 1.7–1.9 KB (two write units a put, four in the end transaction),
 * though its key and index key attributes alone take 0.4–0.6 KB: the field names and the step log's repeated names and
 * values compress about fourfold, so a run of a text is under 1 KB in each of its writes.
 */
function packedFields(run: StoredRun): Record<string, unknown> {
  const { id, organizationId: _organizationId, automationId: _automationId, status, rev, dueAt, ...packed } = run;
  return {
    id,
    status,
    rev,
    ...(dueAt ? { dueAt } : {}),
    packed: deflateRawSync(JSON.stringify(packed), { dictionary: packedDictionary }),
  };
}

/**
 * The preset dictionary of `packed`: the names and the most frequent values of a run's fields, the commonest last
 * (deflate finds a match nearest the end cheapest). **Frozen**: a stored run is inflated with the dictionary it was
 * deflated with, so a change needs an attribute of another name (`packed2`), read beside this one.
 */
const packedDictionary = Buffer.from(
  [
    '"HttpRequest","UpdateLead","AssignLead","AddToSuppressionList","PlaceCall","SendMms","Stop","Wait","until"',
    '"MessageReceived","message.received","MessageFailed","message.failed","CallMissed","call.missed"',
    '"LeadOptedOut","lead.optedOut","Schedule","automation.scheduled","Manual","firedAt"',
    '"ConditionGroup","Skipped","Failed","Blocked","Waiting","Canceled","Delivered","Sent","Queued","Pending"',
    '"statusReason","complianceAction","billingStatus","errorCode","scheduledFor","reason"',
    '{"automationId":"","automationName":"","automationVersion":1,"trigger":{"nodeId":"t","type":"LeadCreated",',
    '"eventId":"lead.created:","eventType":"lead.created","data":{"leadId":"","sourceId":"","complianceStatus":null}},',
    '"leadId":"","path":["t"],"currentNodeId":null,"waitingUntil":null,"steps":[{"seq":0,"nodeId":"t",',
    '"kind":"Trigger","type":"LeadCreated","status":"Succeeded","attempts":1,"input":null,"output":{"eventId":',
    '"lead.created:","eventType":"lead.created","leadId":"","sourceId":"","complianceStatus":null},"error":null,',
    '"startedAt":"2026-","finishedAt":"2026-","durationMs":0},{"seq":1,"nodeId":"","kind":"Action","type":"SendSms",',
    '"status":"Running","attempts":0,"input":{"to":"+1","body":"","mediaUrls":[]},"output":{"messageId":"",',
    '"status":"Queued","fromPhoneNumber":"+1","toPhoneNumber":"+1","observations":1},"error":null,"startedAt":null,',
    '"finishedAt":null,"durationMs":null}],"error":null,"retryCount":0,"createdAt":"2026-","finishedAt":null,',
    '"modifiedAt":"2026-","cursorSeq":1,"cursorAttempt":0,"effectId":null,"leaseToken":null,"leaseUntil":null}',
  ].join(""),
);

/** A stored run: a packed one (`packedFields`), or one stored before runs were packed, its fields as attributes. */
export function unpackedRun(item: Record<string, unknown>): StoredRun {
  const { entity: _entity, packed, ...run } = withoutKeys(item);
  if (!(packed instanceof Uint8Array)) return run as unknown as StoredRun;
  const fields = JSON.parse(inflateRawSync(packed, { dictionary: packedDictionary }).toString("utf8")) as object;
  // Its key: `ORG#<organization>…`, sort key `RUN#<automation>#<run>` (in the organization's partition before issue 27).
  const organizationId = String(item.pk).split("#")[1];
  const automationId = String(item.sk).split("#")[1];
  return { organizationId, automationId, ...fields, ...run, dueAt: run.dueAt ?? null } as unknown as StoredRun;
}
