/** The skills that ship with the package: real, listed as shipped, and able to pass the push rules. */
import { describe, expect, it } from "vitest"
import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { skillSecretProblem } from "../../src/domain/redact/skillCheck.ts"
import { readFrontmatter } from "../../src/domain/skills/frontmatter.ts"
import { skillPushProblem } from "../../src/domain/skills/validate.ts"
import { scanRoot } from "../../src/services/skill-store/scan.ts"
import { SHIPPED_SKILLS_DIR } from "../../src/services/skill-store/SkillStore.ts"

describe("shipped skills", () => {
  it("the package's skills/ folder holds at least two skills, none broken", async () => {
    expect(SHIPPED_SKILLS_DIR).toBe(path.resolve(import.meta.dirname, "../../skills") + path.sep)
    const skills = await scanRoot(SHIPPED_SKILLS_DIR, "shipped")
    expect(skills.length).toBeGreaterThanOrEqual(2)
    for (const s of skills) {
      expect(s.broken, s.name).toBe(false)
      expect(s.description?.length ?? 0, s.name).toBeGreaterThan(40)
      expect(s.category, s.name).toBe("agent-bridge")
    }
  })

  it("each would pass every push rule (the bar the bridge sets for others)", async () => {
    for (const name of fs.readdirSync(SHIPPED_SKILLS_DIR)) {
      const skillMd = fs.readFileSync(path.join(SHIPPED_SKILLS_DIR, name, "SKILL.md"), "utf8")
      expect(skillPushProblem({ name, skillMd, files: {} }, skillSecretProblem), name).toBeNull()
      const fm = readFrontmatter(skillMd)
      expect(Either.isRight(fm) && fm.right.body.trim().length > 500, name).toBe(true)
    }
  })
})
