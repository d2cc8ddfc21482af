import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rolePermissions, roles } from "#core/auth/actor";
import { agentSkills } from "#core/agent/card";
import { loadSkill } from "#core/agent/skills/index";

/** docs/permissions.md's skill table: skill → its permissions and each role's answer. */
function skillTable() {
  const text = readFileSync(new URL("../../docs/permissions.md", import.meta.url), "utf8");
  const section = text.slice(text.indexOf("## Every A2A skill"), text.indexOf("## Every route"));
  const rows = new Map<string, { permissions: string[]; answers: string[] }>();
  for (const line of section.split("\n")) {
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
    if (cells.length !== 5 || cells[0] === "Skill" || cells[0]!.startsWith("---")) continue;
    const [skill, permissions, ...answers] = cells as [string, string, string, string, string];
    rows.set(skill, { permissions: permissions.split(",").map((p) => p.trim()), answers });
  }
  return rows;
}

describe("the A2A skill table (docs/permissions.md)", () => {
  it("has a row for every skill with the permissions it declares and each role's answer", async () => {
    const table = skillTable();
    const ids = agentSkills.map((skill) => skill.id);
    expect([...table.keys()].sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const skill = await loadSkill(id);
      const row = table.get(id)!;
      expect(row.permissions, id).toEqual([...skill.permissions]);
      expect(row.answers, `${id}: ${roles.join(", ")}`).toEqual(
        roles.map((role) => (skill.permissions.every((p) => rolePermissions[role].has(p)) ? "yes" : "no")),
      );
    }
  });
});
