/** Text rendering of inbox rows for `agent-bridge inbox` (tables, cards, diffs). */
import type { FileDiff } from "../domain/skills/diff.ts"
import { showInvisible } from "../domain/skills/invisible.ts"
import type { InboxRow } from "../services/inbox/Inbox.ts"
import type { ParkedVersion } from "../services/skill-store/SkillStore.ts"

/** Text from Hermes or a client, made safe for a terminal: no escape sequences, no carriage returns. */
export const terminalSafe = (s: string): string => showInvisible(s).replace(/\r/g, "\\r")

const oneLine = (s: string, max: number): string => {
  const flat = terminalSafe(s).replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

export const subject = (row: InboxRow): string => {
  switch (row.kind) {
    case "skill_put":
      return `put skill ${row.name} (${Object.keys(row.card.files).length + 1} files, ${row.card.bytes} bytes)`
    case "skill_delete":
      return `delete skill ${row.name}`
    case "run_approval":
      return `run ${row.run_id} on ${row.agent}: ${oneLine(row.command, 60)}`
  }
}

export const table = (head: ReadonlyArray<string>, body: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)))
  return [head, ...body].map((cols) => cols.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd()).join("\n")
}

export const rowsTable = (rows: ReadonlyArray<InboxRow>): string =>
  table(["ID", "STATE", "CLIENT", "CREATED", "WHAT"], rows.map((r) => [r.id, r.state, r.client, r.created_at, subject(r)]))

export const parkedTable = (versions: ReadonlyArray<ParkedVersion>): string =>
  table(["SKILL", "VERSION", "PARKED", "WHY"], versions.map((v) => [v.name, v.version, v.parked_at, oneLine(v.reason, 60)]))

const decided = (row: InboxRow): ReadonlyArray<string> =>
  row.decided_at === null ? [] : [`decided:  ${row.decided_at}${row.decided_by === null ? "" : ` by ${row.decided_by}`}`]

const fence = (title: string, text: string): ReadonlyArray<string> => [`----- ${title} -----`, terminalSafe(text).replace(/\n$/, ""), `----- end of ${title} -----`]

/** The whole card (every byte approval would write) and the diff against what is installed. */
export const rowDetail = (row: InboxRow, diff: ReadonlyArray<FileDiff> | null): string => {
  const head = [`id:       ${row.id}`, `kind:     ${row.kind}`, `state:    ${row.state}`, `client:   ${row.client}`, `created:  ${row.created_at}`, ...decided(row)]
  const body: Array<string> = []
  switch (row.kind) {
    case "skill_put": {
      body.push(`skill:    ${row.name}`, `bytes:    ${row.card.bytes}`, `digest:   ${row.card.digest}`, "")
      body.push(...fence("SKILL.md", row.card.preview))
      for (const [name, f] of Object.entries(row.card.files)) {
        body.push("", `${name}: ${f.size} bytes, sha256 ${f.sha256}`, ...fence(name, f.content))
      }
      break
    }
    case "skill_delete":
      body.push(`skill:    ${row.name}`)
      break
    case "run_approval":
      body.push(
        `run:      ${row.run_id} (${row.agent}, Hermes run ${row.hermes_run_id})`,
        `request:  ${row.request_id ?? "(Hermes named none)"}`,
        `choices:  ${row.choices.length === 0 ? "once, session, always" : row.choices.join(", ")}`,
        ...(row.choice === null ? [] : [`answered: ${row.choice}`]),
        `about:    ${terminalSafe(row.description)}`,
        "",
        ...fence("command", row.command)
      )
      break
  }
  const changes =
    diff === null
      ? []
      : ["", "Changes against the installed version:", ...diff.flatMap((d) =>
          d.change === "unchanged" ? [`  ${d.file}: unchanged`] : [`  ${d.file}: ${d.change}`, ...(d.diff === null ? ["    (not text; not shown)"] : d.diff === "" ? [] : [terminalSafe(d.diff).replace(/\n$/, "")])]
        )]
  return [...head, ...body, ...changes].join("\n")
}
