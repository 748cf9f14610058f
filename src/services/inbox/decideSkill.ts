/**
 * Carrying out an approved skill row: a put writes exactly the card's content (checked against its
 * digest first), a delete removes the drop-in folder; both park the version they replace.
 */
import { Effect, Option } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import { cardContents, cardIsIntact } from "../../domain/skills/card.ts"
import type { SkillDeleteRow, SkillPutRow } from "./Inbox.ts"
import type { SkillStoreShape } from "../skill-store/SkillStore.ts"

/**
 * Carries out the row and answers how to take it back (`SkillStore.undo`), for when the row then
 * cannot be closed: an approval either happens whole (skill written, row approved) or not at all.
 */
export const carryOutSkillRow = (skills: SkillStoreShape, row: SkillPutRow | SkillDeleteRow): Effect.Effect<Effect.Effect<void, BridgeError>, BridgeError> => {
  const reason = `${row.kind === "skill_put" ? "replaced" : "deleted"} by inbox row ${row.id} (from ${row.client})`
  if (row.kind === "skill_delete") return Effect.map(skills.remove(row.name, reason), (parked) => skills.undo(row.name, parked, false))
  // A stored card whose digest no longer matches its content was altered at rest: never write it.
  if (!cardIsIntact(row.card)) return Effect.die(new Error(`inbox row ${row.id}: the stored card does not match its digest`))
  return skills.install(row.name, cardContents(row.card), reason).pipe(
    Effect.tap((parked) =>
      Option.match(parked, {
        onNone: () => Effect.logInfo(`skill '${row.name}' installed from ${row.id}`),
        onSome: (p) => Effect.logInfo(`skill '${row.name}' installed from ${row.id}; previous version parked as ${p.version}`)
      })
    ),
    Effect.map((parked) => skills.undo(row.name, parked, true))
  )
}
