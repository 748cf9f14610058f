/**
 * Queues skill changes in the inbox under the documented rules (docs/REFERENCE.md):
 * - a skill has at most one content pending (a put's card digest, or a delete);
 * - the same client pushing the same content again gets the same row back;
 * - another client pushing identical content gets its own row;
 * - an edited push from the same client withdraws that client's older row and queues the new one,
 *   so approving always writes what the card shows;
 * - different content while another client's change of that skill is pending is
 *   `bridge.skill_pending_elsewhere`;
 * - a client holds at most eight pending skill changes (puts and deletes together):
 *   `bridge.too_many_pending`.
 * Each proposal runs alone (`InboxStore.exclusive`, shared with skill decisions) and in one
 * transaction, so two pushes cannot both pass and a push cannot withdraw a row being approved.
 */
import { Context, Effect, Layer } from "effect"
import { nowIso } from "../../common/time.ts"
import type { BridgeError } from "../../domain/errors.ts"
import { SkillPendingElsewhere, TooManyPending, Unavailable } from "../../domain/errors.ts"
import type { SkillCard, SkillDeleteRow, SkillPutRow } from "./Inbox.ts"
import { InboxStore } from "./InboxStore.ts"
import { newInboxId } from "./InboxStore.ts"
import { contentKeyOf, DELETE_CONTENT_KEY, putContentKey } from "./rows.ts"
import { PENDING_SKILL_CHANGES_MAX } from "../../domain/limits.ts"


export interface SkillProposalsShape {
  readonly put: (client: string, card: SkillCard) => Effect.Effect<SkillPutRow, BridgeError>
  readonly remove: (client: string, name: string) => Effect.Effect<SkillDeleteRow, BridgeError>
}

export class SkillProposals extends Context.Tag("agent-bridge/SkillProposals")<SkillProposals, SkillProposalsShape>() {}

/**
 * No approval inbox: skill changes are `bridge.unavailable` while `SkillsLive` still lists and
 * reads skills (unlike `SkillsNotRunning`, which refuses reads too).
 */
export const SkillProposalsNotRunning = Layer.succeed(SkillProposals, (() => {
  const no = () => Effect.fail(new Unavailable({ message: "no approval inbox is running" }))
  return { put: no, remove: no }
})())

export const SkillProposalsLive = Layer.effect(
  SkillProposals,
  Effect.gen(function* () {
    const store = yield* InboxStore

    /** Applies the rules for `client` proposing `key` on skill `name`; `make` builds the new row. */
    const propose = <Row extends SkillPutRow | SkillDeleteRow>(
      client: string,
      name: string,
      key: string,
      make: (id: string, createdAt: string) => Row
    ): Effect.Effect<Row, BridgeError> =>
      store.exclusive(
        store.transaction(
          Effect.gen(function* () {
            const pending = yield* store.pendingForSkill(name)
            const mine = pending.filter((r) => r.client === client)
            const same = mine.find((r) => contentKeyOf(r) === key)
            if (same !== undefined) return same as Row
            if (pending.some((r) => r.client !== client && contentKeyOf(r) !== key)) {
              return yield* new SkillPendingElsewhere({
                message: `another client has a pending change to skill '${name}'; it can be pushed again once the operator decides that one`
              })
            }
            const held = (yield* store.pendingCountFor(client)) - mine.length
            if (held >= PENDING_SKILL_CHANGES_MAX) {
              return yield* new TooManyPending({
                message: `you already hold ${PENDING_SKILL_CHANGES_MAX} pending skill changes; wait until the operator decides some of them`
              })
            }
            const now = yield* nowIso
            for (const older of mine) yield* store.close(older.id, { state: "withdrawn", at: now, by: client })
            const row = make(newInboxId(), now)
            yield* store.insert(row)
            return row
          })
        )
      )

    const base = (client: string, id: string, createdAt: string) => ({
      id,
      client,
      state: "pending" as const,
      created_at: createdAt,
      decided_at: null,
      decided_by: null
    })

    return SkillProposals.of({
      put: (client, card) =>
        propose(client, card.name, putContentKey(card.digest), (id, at) => ({ ...base(client, id, at), kind: "skill_put", name: card.name, card })),
      remove: (client, name) =>
        propose(client, name, DELETE_CONTENT_KEY, (id, at) => ({ ...base(client, id, at), kind: "skill_delete", name }))
    })
  })
)
