/**
 * What an inbox row would change on disk, file by file, against the installed drop-in version: the
 * diff the operator reads before approving (the inbox page, `agent-bridge inbox show`).
 */
import { Effect, Option } from "effect"
import type { Internal, StoreUnavailable } from "../../domain/errors.ts"
import { cardContents } from "../../domain/skills/card.ts"
import { type FileDiff, skillDiff } from "../../domain/skills/diff.ts"
import type { InboxRow } from "./Inbox.ts"
import { SkillStore } from "../skill-store/SkillStore.ts"

/** Null for a run approval (nothing on disk changes). */
export const rowDiff = (row: InboxRow): Effect.Effect<ReadonlyArray<FileDiff> | null, Internal | StoreUnavailable, SkillStore> =>
  row.kind === "run_approval"
    ? Effect.succeed(null)
    : Effect.flatMap(SkillStore, (skills) =>
        Effect.map(skills.installed(row.name), (installed) =>
          skillDiff(row.kind === "skill_put" ? cardContents(row.card) : null, Option.getOrNull(installed))
        )
      )
