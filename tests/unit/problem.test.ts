import { describe, expect, it } from "vitest";
import { NotFoundError, UnreadableItemError } from "#core/errors";
import { toProblem } from "#core/http/problem";

describe("problem details", () => {
  it("gives every 500 the correlation id of its log line, a described one included, and no other status one", () => {
    const unreadable = toProblem(new UnreadableItemError("The stored run cannot be read."), "/runs/1", "c-1").problem;
    expect(unreadable).toMatchObject({ status: 500, detail: "The stored run cannot be read.", correlationId: "c-1" });
    expect(toProblem(new Error("bug"), "/runs/1", "c-2").problem).toMatchObject({ status: 500, correlationId: "c-2" });
    expect(toProblem(new NotFoundError("Automation run", "run_1"), "/runs/1", "c-3").problem).not.toHaveProperty(
      "correlationId",
    );
  });
});
