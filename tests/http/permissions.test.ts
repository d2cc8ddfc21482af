import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rolePermissions, roles, type Role } from "#core/auth/actor";
import { allOperations } from "#core/http/operations/index";
import { routes } from "#stacks/definitions";
import { newOrganization } from "#tests/helpers/stack";

/** docs/permissions.md's route table: operation → route, permission and each role's answer. */
function permissionTable() {
  const text = readFileSync(new URL("../../docs/permissions.md", import.meta.url), "utf8");
  const section = text.slice(text.indexOf("## Every route"));
  const rows = new Map<string, { route: string; permission: string; answers: Record<Role, string> }>();
  for (const line of section.split("\n")) {
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells.length !== 6 || cells[0] === "Operation" || cells[0]!.startsWith("---")) continue;
    const [operationId, route, permission, owner, admin, agent] = cells as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    rows.set(operationId, { route, permission, answers: { owner, admin, agent } });
  }
  return rows;
}

const declared = (operation: (typeof allOperations)[number]) =>
  operation.auth === "public"
    ? "public"
    : operation.auth === "identity"
      ? "signed in"
      : (operation.permission ?? "any");

describe("the permission table (docs/permissions.md)", () => {
  const table = permissionTable();

  it("has an entry for every route, with the route and the permission its operation declares", () => {
    const missing = routes.filter((route) => !table.has(route.operationId)).map((route) => route.operationId);
    expect(missing, "routes without an entry in docs/permissions.md").toEqual([]);
    expect(
      [...table.keys()].filter((id) => !routes.some((route) => route.operationId === id)),
      "entries of no route",
    ).toEqual([]);
    for (const operation of allOperations) {
      const row = table.get(operation.operationId)!;
      expect(row.route, operation.operationId).toBe(`${operation.method} ${operation.path}`);
      expect(row.permission, operation.operationId).toBe(declared(operation));
      for (const role of roles) {
        const expected =
          operation.auth === "public"
            ? "public"
            : operation.permission === undefined || rolePermissions[role].has(operation.permission)
              ? "yes"
              : "no";
        expect(row.answers[role], `${operation.operationId} for ${role}`).toBe(expected);
      }
    }
  });

  it.each(roles)("answers each route for an %s as the table says: 403 exactly where it says no", async (role) => {
    const org = await newOrganization();
    const token = { owner: org.ownerToken, admin: org.adminToken, agent: org.agentToken }[role];
    const wrong: string[] = [];
    for (const route of routes) {
      const row = table.get(route.operationId)!;
      if (row.permission === "public") continue;
      const path = route.path.replace(/\{[^}]+\}/g, "01JZZZZZZZZZZZZZZZZZZZZZZZ");
      const body = route.method === "POST" || route.method === "PUT" ? {} : undefined;
      const response = await org.request(route.method, path, { token, body });
      const refused = response.status === 403;
      if (refused !== (row.answers[role] === "no"))
        wrong.push(
          `${route.operationId} ${route.method} ${path}: ${response.status} ${JSON.stringify(response.body).slice(0, 160)}`,
        );
    }
    expect(wrong).toEqual([]);
  });
});
