import { deflateSync, inflateSync } from "node:zlib";
import type { StoredRun } from "#core/automations/runs/model";
import { withoutKeys } from "#core/db/indexes";
import { UnreadableItemError } from "#core/errors";

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
 * `packedDictionary`, in `packed`, after a byte naming its format (`PACKED_FORMAT`). A run item was 1.7–1.9 KB (two write units a put, four in the end transaction),
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
    packed: Buffer.concat([
      Uint8Array.of(PACKED_FORMAT),
      deflateSync(JSON.stringify(packed), { dictionary: packedDictionary }),
    ]),
  };
}

/**
 * The first byte of `packed`: its format. 1: zlib's wrapped deflate (RFC 1950) with `packedDictionary`, whose header
 * records the dictionary's Adler-32, so inflating with another dictionary throws instead of answering other JSON. A
 * future format takes another byte, and a reader that does not know it says so (`UnreadableItemError`).
 */
const PACKED_FORMAT = 1;

/**
 * The preset dictionary of `packed`: the names and the most frequent values of a run's fields, the commonest last
 * (deflate finds a match nearest the end cheapest). **Frozen**: a stored run is inflated with the dictionary it was
 * deflated with, so a change needs another format byte (`PACKED_FORMAT`), read beside this one.
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

/**
 * A stored run: a packed one (`packedFields`), or one stored before runs were packed, its fields as attributes (it has
 * `steps`). Anything else (a format byte this code does not know, bytes that do not inflate, an item with neither) is
 * an `UnreadableItemError`: never read as a run of the other form.
 */
export function toStoredRun(item: Record<string, unknown>): StoredRun {
  const { entity: _entity, packed, ...run } = withoutKeys(item);
  if (packed === undefined && Array.isArray(run.steps)) return run as unknown as StoredRun;
  // Its key: `ORG#<organization>…`, sort key `RUN#<automation>#<run>` (in the organization's partition before issue 27).
  const organizationId = String(item.pk).split("#")[1];
  const automationId = String(item.sk).split("#")[1];
  const fields = packedDocument(packed, `${automationId}/${String(run.id)}`);
  return { organizationId, automationId, ...fields, ...run, dueAt: run.dueAt ?? null } as unknown as StoredRun;
}

function packedDocument(packed: unknown, name: string): object {
  const unreadable = (why: string) =>
    new UnreadableItemError(`The stored automation run ${name} cannot be read: ${why}.`);
  if (!(packed instanceof Uint8Array)) throw unreadable("it has neither packed fields nor a step log");
  if (packed[0] !== PACKED_FORMAT) throw unreadable(`its packed fields are in format ${packed[0]}, unknown here`);
  try {
    const document = JSON.parse(inflateSync(packed.subarray(1), { dictionary: packedDictionary }).toString("utf8"));
    if (typeof document !== "object" || document === null) throw new Error("not an object");
    return document as object;
  } catch {
    throw unreadable("its packed fields do not inflate to a run");
  }
}
