/**
 * `agent-bridge inbox`: the operator's side of the inbox on the box itself.
 *
 *   inbox list [--state pending|approved|denied|expired|withdrawn|all] [--json]   (default: pending)
 *   inbox show ID [--json]            the whole card and the diff against the installed skill
 *   inbox approve ID [--choice once|session|always]
 *   inbox deny ID
 *   inbox parked [NAME] [--json]      parked skill versions
 *   inbox restore NAME VERSION        put a parked version back
 *
 * Whoever runs this on the box holds the data directory, so decisions are recorded as `admin`.
 */
import { Effect, Option } from "effect"
import type { BridgeError } from "../domain/errors.ts"
import { APPROVE_CHOICES, isApproveChoice } from "../domain/approvals.ts"
import { Inbox, type InboxState } from "../services/inbox/Inbox.ts"
import { rowDiff } from "../services/inbox/rowDiff.ts"
import { SkillStore } from "../services/skill-store/SkillStore.ts"
import { printedExit } from "./printedExit.ts"
import { flag, hasFlag, type ParsedArgs, UsageError } from "./args.ts"
import { parkedTable, rowDetail, rowsTable } from "./inboxFormat.ts"

export const INBOX_USAGE = `usage: agent-bridge inbox list [--state pending|approved|denied|expired|withdrawn|all] [--json]
       agent-bridge inbox show ID [--json]
       agent-bridge inbox approve ID [--choice once|session|always]
       agent-bridge inbox deny ID
       agent-bridge inbox parked [NAME] [--json]
       agent-bridge inbox restore NAME VERSION`

const STATES: ReadonlyArray<InboxState> = ["pending", "approved", "denied", "expired", "withdrawn"]
const DECIDER = "admin"

const json = (value: unknown) => JSON.stringify(value, null, 2)
const need = (value: string | undefined, what: string): Effect.Effect<string, UsageError> =>
  value === undefined || value === "" ? Effect.fail(new UsageError(`missing ${what}\n\n${INBOX_USAGE}`)) : Effect.succeed(value)

/** Runs one `inbox` sub-command (`args.positionals[0]` is "inbox") and returns what to print. */
export const inboxCommand = (args: ParsedArgs): Effect.Effect<string, BridgeError | UsageError, Inbox | SkillStore> =>
  Effect.gen(function* () {
    const inbox = yield* Inbox
    const [, sub, a, b] = args.positionals
    const asJson = hasFlag(args, "json")
    switch (sub) {
      case "list": {
        const wanted = flag(args, "state") ?? "pending"
        if (wanted !== "all" && !STATES.includes(wanted as InboxState)) {
          return yield* Effect.fail(new UsageError(`--state takes ${[...STATES, "all"].join("|")}`))
        }
        const rows = yield* inbox.list(wanted === "all" ? {} : { state: wanted as InboxState })
        if (asJson) return json({ rows })
        return rows.length === 0 ? `no ${wanted === "all" ? "" : `${wanted} `}inbox rows` : rowsTable(rows)
      }
      case "show": {
        const id = yield* need(a, "ID")
        const row = yield* Effect.flatMap(inbox.get(id), Option.match({
          onNone: () => Effect.fail(new UsageError(`no inbox row '${id}'`)),
          onSome: Effect.succeed
        }))
        const diff = row.state === "pending" ? yield* rowDiff(row) : null
        return asJson ? json({ row, diff }) : rowDetail(row, diff)
      }
      case "approve":
      case "deny": {
        const id = yield* need(a, "ID")
        const choice = flag(args, "choice")
        if (choice !== undefined && (sub === "deny" || !isApproveChoice(choice))) {
          return yield* Effect.fail(new UsageError(sub === "deny" ? "--choice goes with approve" : `--choice takes ${APPROVE_CHOICES.join("|")}`))
        }
        const row = yield* inbox.decide(id, {
          approve: sub === "approve",
          choice: isApproveChoice(choice) ? choice : undefined,
          by: DECIDER,
          via: "cli"
        })
        if (asJson) return json({ row })
        const how = row.kind === "run_approval" && row.choice !== null ? ` (${row.choice})` : ""
        return row.state === "expired"
          ? `${id}: Hermes no longer waits for this approval; the row is closed as expired.`
          : `${id}: ${row.state}${how}.`
      }
      case "parked": {
        const store = yield* SkillStore
        const versions = yield* store.parked(a)
        if (asJson) return json({ parked: versions })
        return versions.length === 0 ? "no parked skill versions" : parkedTable(versions)
      }
      case "restore": {
        const store = yield* SkillStore
        const result = yield* store.restore(yield* need(a, "NAME"), yield* need(b, "VERSION"))
        if (asJson) return json(result)
        return Option.match(result.parked, {
          onNone: () => `Restored ${result.restored.name} from ${result.restored.version}.`,
          onSome: (p) => `Restored ${result.restored.name} from ${result.restored.version}; the version it replaced is parked as ${p.version}.`
        })
      }
      default:
        return yield* Effect.fail(new UsageError(INBOX_USAGE))
    }
  })

/** Runs `inboxCommand`, prints its output or error, and answers the process exit code (0, 1 or 2). */
export const inboxMain = (args: ParsedArgs): Effect.Effect<number, never, Inbox | SkillStore> => printedExit(inboxCommand(args))
