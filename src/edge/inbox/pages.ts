/** The GET pages of a signed-in operator: pending, history and one row. */
import { HttpServerRequest } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { errorText } from "../../domain/errors.ts"
import type { FileDiff } from "../../domain/skills/diff.ts"
import { Inbox, type InboxRow } from "../../services/inbox/Inbox.ts"
import { rowDiff } from "../../services/inbox/rowDiff.ts"
import { Redactor } from "../../common/Redactor.ts"
import { chromeFor, htmlResponse, pendingRows, queryParam, type SignedIn } from "./respond.ts"
import { messagePage, rowPage } from "./views/card.ts"
import { displayRunApproval } from "./views/format.ts"
import { decidedNotice, historyPage, pendingPage } from "./views/lists.ts"
import { connectionRequests } from "./views/connections.ts"
import { Consents } from "../../services/oauth/Consents.ts"

/** Rows as the page shows them: run approvals' command and description through the redactor. */
export const forDisplay = Effect.map(Redactor, (redactor) => (row: InboxRow): InboxRow =>
  row.kind === "run_approval" ? displayRunApproval(row, (s) => redactor.text(s)) : row
)

/** Row ids are `apr_` and hex; anything else in the path is simply not a row. */
export const ROW_ID = /^[A-Za-z0-9_-]{1,64}$/

export const pendingPageResponse = (signedIn: SignedIn) =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const inbox = yield* Inbox
    const show = yield* forDisplay
    const pending = yield* pendingRows
    const decidedId = queryParam(req, "decided")
    const decided = decidedId !== null && ROW_ID.test(decidedId) ? yield* inbox.get(decidedId) : Option.none<InboxRow>()
    const notice = Option.match(decided, { onNone: () => null, onSome: (row) => decidedNotice(show(row)) })
    // OAuth's connection requests, when OAuth is on (services/oauth/Consents.ts).
    const consents = yield* Effect.serviceOption(Consents)
    const connections = Option.isSome(consents) ? connectionRequests(yield* consents.value.pending, signedIn.session.csrf) : null
    return htmlResponse(pendingPage(chromeFor(signedIn, pending), pending.map(show), yield* Clock.currentTimeMillis, notice, connections))
  })

export const historyPageResponse = (signedIn: SignedIn) =>
  Effect.gen(function* () {
    const inbox = yield* Inbox
    const show = yield* forDisplay
    const [pending, all] = yield* Effect.all([pendingRows, inbox.list()])
    return htmlResponse(historyPage(chromeFor(signedIn, pending), all.map(show), yield* Clock.currentTimeMillis))
  })

/** One row's page; `error` is a failed decision to show above it (with its status). */
export const rowPageResponse = (signedIn: SignedIn, id: string, error: { readonly text: string; readonly status: number } | null = null) =>
  Effect.gen(function* () {
    const inbox = yield* Inbox
    const show = yield* forDisplay
    const pending = yield* pendingRows
    const chrome = chromeFor(signedIn, pending)
    const found = ROW_ID.test(id) ? yield* inbox.get(id) : Option.none<InboxRow>()
    if (Option.isNone(found)) return htmlResponse(messagePage(chrome, "No such row", `There is no inbox row '${id}'.`), 404)
    const row = found.value
    // The diff of a decided row would compare against whatever is installed now, which says nothing.
    const diff: ReadonlyArray<FileDiff> | null = row.state === "pending"
      ? yield* rowDiff(row).pipe(Effect.catchAll((e) => Effect.as(Effect.logWarning("inbox page: diff unavailable", errorText(e)), null)))
      : null
    const now = yield* Clock.currentTimeMillis
    return htmlResponse(rowPage({ chrome, row: show(row), diff, now, error: error?.text ?? null }), error?.status ?? 200)
  })
