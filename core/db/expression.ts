/**
 * Conditions and updates as data, compiled to DynamoDB expression strings here, so an aggregate states what must
 * hold (`where.equals("processingStatus", "Pending")`) and never writes an expression string or a placeholder.
 * Paths are dotted attribute paths (`metadata.smsConsentStatus`); every segment becomes a name placeholder.
 */

export type Condition =
  | { kind: "exists" | "absent" | "absentOrNull" | "isMap"; path: string }
  | { kind: "=" | "<>" | "<" | "<=" | ">" | ">="; path: string; value: unknown }
  | { kind: "in"; path: string; values: readonly unknown[] }
  | { kind: "contains"; path: string; value: unknown }
  | { kind: "and" | "or"; parts: Condition[] }
  | { kind: "not"; part: Condition };

/** The conditions an aggregate may state on an item it writes. */
export const where = {
  /** The item exists (its key attribute is present). */
  stored: (): Condition => ({ kind: "exists", path: "pk" }),
  /** No item holds the key yet. */
  new: (): Condition => ({ kind: "absent", path: "pk" }),
  exists: (path: string): Condition => ({ kind: "exists", path }),
  absent: (path: string): Condition => ({ kind: "absent", path }),
  /** Absent, or present and null (a field stored as null means "not set" too). */
  absentOrNull: (path: string): Condition => ({ kind: "absentOrNull", path }),
  isMap: (path: string): Condition => ({ kind: "isMap", path }),
  equals: (path: string, value: unknown): Condition => ({ kind: "=", path, value }),
  /** Another value than `value` (DynamoDB's `<>`, as a condition on a payload fingerprint states it). */
  differs: (path: string, value: unknown): Condition => ({ kind: "<>", path, value }),
  before: (path: string, value: unknown): Condition => ({ kind: "<", path, value }),
  after: (path: string, value: unknown): Condition => ({ kind: ">", path, value }),
  /** Present and not above `value` (an absent attribute fails it). */
  atMost: (path: string, value: unknown): Condition => ({ kind: "<=", path, value }),
  /** Present and not below `value` (unlike `not(before(…))`, which an absent attribute passes). */
  atLeast: (path: string, value: unknown): Condition => ({ kind: ">=", path, value }),
  oneOf: (path: string, values: readonly unknown[]): Condition => ({ kind: "in", path, values }),
  /** A list (or set) attribute holding `value` (an absent one does not). */
  contains: (path: string, value: unknown): Condition => ({ kind: "contains", path, value }),
  /** All of the parts (undefined parts are left out: a condition that applies only sometimes). */
  all: (...parts: (Condition | undefined)[]): Condition => ({
    kind: "and",
    parts: parts.filter((part) => part !== undefined),
  }),
  any: (...parts: Condition[]): Condition => ({ kind: "or", parts }),
  not: (part: Condition): Condition => ({ kind: "not", part }),
};

const computedKind = Symbol("computed");

/** A value an update computes from what the item holds, where a plain value would overwrite it. */
export type Computed =
  | { [computedKind]: "ifAbsent"; value: unknown }
  | { [computedKind]: "increment"; by: number }
  | { [computedKind]: "copyOf"; path: string }
  | { [computedKind]: "add"; by: number }
  | { [computedKind]: "addToSet" | "deleteFromSet"; values: ReadonlySet<string> };

/** The values an update may compute in DynamoDB (`generation: computed.increment()`), by dotted path as `where`. */
export const computed = {
  /** The value the attribute holds, or `value` when it holds none yet (a first failure's time). */
  ifAbsent: (value: unknown): Computed => ({ [computedKind]: "ifAbsent", value }),
  /** The attribute's number plus `by` (an absent attribute counts as 0). */
  increment: (by = 1): Computed => ({ [computedKind]: "increment", by }),
  /** The value another attribute of the item holds (before this update). */
  copyOf: (path: string): Computed => ({ [computedKind]: "copyOf", path }),
  /** The string set with `values` added (DynamoDB's ADD: created when absent), without reading it first. */
  addToSet: (...values: string[]): Computed => ({ [computedKind]: "addToSet", values: new Set(values) }),
  /** The string set without `values` (DynamoDB's DELETE: a set left empty is removed). */
  deleteFromSet: (...values: string[]): Computed => ({ [computedKind]: "deleteFromSet", values: new Set(values) }),
  /**
   * `by` added to the attribute's number (created when absent), as DynamoDB's `ADD` clause: the same count as
   * `increment` in a quarter of the expression, for an update of many counters (an expression is at most 4 KB).
   */
  add: (by: number): Computed => ({ [computedKind]: "add", by }),
};

/** The set changes, which DynamoDB writes in ADD and DELETE clauses rather than as a SET assignment. */
type SetChange = "addToSet" | "deleteFromSet";
const setKindOf = (value: unknown): SetChange | undefined =>
  isComputed(value) && (value[computedKind] === "addToSet" || value[computedKind] === "deleteFromSet")
    ? value[computedKind]
    : undefined;

const isComputed = (value: unknown): value is Computed =>
  typeof value === "object" && value !== null && computedKind in value;

/** An expression's placeholders, shared by the update and condition of one write. */
export class Placeholders {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly nameOf = new Map<string, string>();

  path(path: string): string {
    return path
      .split(".")
      .map((segment) => {
        let placeholder = this.nameOf.get(segment);
        if (!placeholder) {
          placeholder = `#n${this.nameOf.size}`;
          this.nameOf.set(segment, placeholder);
          this.names[placeholder] = segment;
        }
        return placeholder;
      })
      .join(".");
  }

  value(value: unknown): string {
    const placeholder = `:v${Object.keys(this.values).length}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  condition(condition: Condition): string {
    switch (condition.kind) {
      case "exists":
        return `attribute_exists(${this.path(condition.path)})`;
      case "absent":
        return `attribute_not_exists(${this.path(condition.path)})`;
      case "absentOrNull": {
        const path = this.path(condition.path);
        return `(attribute_not_exists(${path}) OR attribute_type(${path}, ${this.value("NULL")}))`;
      }
      case "isMap":
        return `attribute_type(${this.path(condition.path)}, ${this.value("M")})`;
      case "in":
        return `${this.path(condition.path)} IN (${condition.values.map((value) => this.value(value)).join(", ")})`;
      case "contains":
        return `contains(${this.path(condition.path)}, ${this.value(condition.value)})`;
      case "not":
        return `NOT ${this.condition(condition.part)}`;
      case "and":
      case "or": {
        // A group of one is that part (DynamoDB refuses the redundant parentheses `((a OR b))`).
        const parts = condition.parts.map((part) => this.condition(part)).filter(Boolean);
        return parts.length <= 1 ? (parts[0] ?? "") : `(${parts.join(` ${condition.kind.toUpperCase()} `)})`;
      }
      default:
        return `${this.path(condition.path)} ${condition.kind} ${this.value(condition.value)}`;
    }
  }

  /**
   * `SET a = :v, … ADD c :v, s :v … DELETE s :v … REMOVE b, …` of the assignments (by path; `computed.add` and a
   * set's `addToSet` ADD, its `deleteFromSet` DELETE) and removals.
   */
  update(set: ReadonlyMap<string, unknown>, remove: readonly string[] = []): string {
    const isAdd = (value: unknown) => isComputed(value) && value[computedKind] === "add";
    const clauses = [...set]
      .filter(([, value]) => !setKindOf(value) && !isAdd(value))
      .map(([path, value]) => `${this.path(path)} = ${this.assigned(path, value)}`);
    const setChanges = (kind: SetChange) =>
      [...set]
        .filter(([, value]) => setKindOf(value) === kind)
        .map(([path, value]) => `${this.path(path)} ${this.value((value as { values: ReadonlySet<string> }).values)}`);
    const added = [
      ...[...set]
        .filter(([, value]) => isAdd(value))
        .map(([path, value]) => `${this.path(path)} ${this.value((value as { by: number }).by)}`),
      ...setChanges("addToSet"),
    ];
    const deleted = setChanges("deleteFromSet");
    return [
      clauses.length ? `SET ${clauses.join(", ")}` : "",
      added.length ? `ADD ${added.join(", ")}` : "",
      deleted.length ? `DELETE ${deleted.join(", ")}` : "",
      remove.length ? `REMOVE ${remove.map((path) => this.path(path)).join(", ")}` : "",
    ]
      .filter(Boolean)
      .join(" ");
  }

  /** The right-hand side of `path = …`: a placeholder of the value, or what a `computed` value compiles to. */
  assigned(path: string, value: unknown): string {
    if (!isComputed(value)) return this.value(value);
    switch (value[computedKind]) {
      case "ifAbsent":
        return `if_not_exists(${this.path(path)}, ${this.value(value.value)})`;
      case "increment":
      case "add":
        return `if_not_exists(${this.path(path)}, ${this.value(0)}) + ${this.value(value.by)}`;
      case "copyOf":
        return this.path(value.path);
      case "addToSet":
      case "deleteFromSet":
        throw new Error(`${path}: a set change is an ADD or DELETE clause, not an assignment.`);
    }
  }

  /** A ProjectionExpression of the paths. */
  projection(paths: readonly string[]): string {
    return paths.map((path) => this.path(path)).join(", ");
  }

  /** The names and values to send (DynamoDB refuses empty maps). */
  attributes(): {
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  } {
    return {
      ...(Object.keys(this.names).length ? { ExpressionAttributeNames: this.names } : {}),
      ...(Object.keys(this.values).length ? { ExpressionAttributeValues: this.values } : {}),
    };
  }
}
