/**
 * What the signed-in pages show and do: pending rows newest first with client and age, the history,
 * the whole skill card (every file with size, SHA-256 and content; total bytes; digest) and its diff,
 * the redacted run approval with Hermes's choices, HTML escaping of everything remote, decisions
 * through the Inbox service with CSRF, and the static assets and odd paths.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref, TestClock } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { sha256Hex, skillDigest } from "../../src/domain/skills/card.ts"
import { readFolder, skillMd, writeSkill } from "../teach/skillFixtures.ts"
import { makeBrowser, makeHarness, openApproval, pushDelete, pushSkill, rowState } from "./support.ts"

/** The text between an element's open tag (matched by `open`) and the next `</tag>`. */
const section = (page: string, open: string, close: string): string => {
  const start = page.indexOf(open)
  if (start < 0) return ""
  return page.slice(start, page.indexOf(close, start))
}

describe("pending and history", () => {
  it.effect("pending rows of every kind, newest first, each with client and age", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      writeSkill(h.stack.dirs.dropinDir, "old-skill", skillMd("old-skill"))
      yield* TestClock.setTime(Date.parse("2030-01-01T10:00:00Z"))
      const put = yield* pushSkill("alice", "first-skill", skillMd("first-skill"), { "notes.md": "n" })
      yield* TestClock.adjust("2 minutes")
      const del = yield* pushDelete("bob", "old-skill")
      yield* TestClock.adjust("3 minutes")
      const run = yield* openApproval({ client: "carol" })
      yield* TestClock.adjust("1 minute")
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      const page = (yield* b.call("GET", "/inbox")).body
      const order = [run.id, del.approval_id, put.approval_id].map((id) => page.indexOf(`data-row="${id}"`))
      expect(order.every((i) => i > 0)).toBe(true)
      expect([...order].sort((x, y) => x - y)).toEqual(order)
      const runRow = section(page, `data-row="${run.id}"`, "</tr>")
      expect(runRow).toContain("Run approval")
      expect(runRow).toContain("<td>carol</td>")
      expect(runRow).toContain("1 min ago")
      const putRow = section(page, `data-row="${put.approval_id}"`, "</tr>")
      expect(putRow).toContain("Install skill <strong>first-skill</strong>")
      expect(putRow).toContain("<td>alice</td>")
      expect(putRow).toContain("6 min ago")
      expect(putRow).toContain(`href="/inbox/rows/${put.approval_id}"`)
      expect(section(page, `data-row="${del.approval_id}"`, "</tr>")).toContain("Delete skill <strong>old-skill</strong>")
      expect(page).toContain('Pending (<span id="pending-count">3</span>)')
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("an empty inbox says so; decided rows move to the history with who decided and when", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      expect((yield* b.call("GET", "/inbox")).body).toContain("Nothing is waiting for you.")
      expect((yield* b.call("GET", "/inbox/history")).body).toContain("No row has been decided yet.")
      const a = yield* pushSkill("alice", "a-skill", skillMd("a-skill"))
      const c = yield* pushSkill("alice", "c-skill", skillMd("c-skill"))
      yield* pushSkill("alice", "still-pending", skillMd("still-pending"))
      yield* b.call("POST", `/inbox/rows/${a.approval_id}`, { form: { csrf, decision: "approve" } })
      yield* TestClock.adjust("1 minute")
      yield* b.call("POST", `/inbox/rows/${c.approval_id}`, { form: { csrf, decision: "deny" } })
      const history = (yield* b.call("GET", "/inbox/history")).body
      expect(history).not.toContain("still-pending")
      // Most recently decided first.
      expect(history.indexOf(`data-row="${c.approval_id}"`)).toBeLessThan(history.indexOf(`data-row="${a.approval_id}"`))
      expect(section(history, `data-row="${c.approval_id}"`, "</tr>")).toContain("Denied")
      expect(section(history, `data-row="${a.approval_id}"`, "</tr>")).toContain("Approved")
      expect(section(history, `data-row="${a.approval_id}"`, "</tr>")).toContain("by admin")
      const pending = (yield* b.call("GET", "/inbox")).body
      expect(pending).toContain("still-pending")
      expect(pending).not.toContain(`data-row="${a.approval_id}"`)
    }).pipe(Effect.provide(h.layer))
  })
})

describe("the skill card", () => {
  it.effect("shows the whole SKILL.md and every file with size, SHA-256 and content, the total and the digest", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const md = skillMd("deploy-notes", "How we deploy.", "# Deploy\n\nRun `make deploy`.\n")
      const files = { "checklist.md": "- build\n- test\n- ship\n", "env.example": "API_KEY=<YOUR_API_KEY>\n" }
      const row = yield* pushSkill("alice", "deploy-notes", md, files)
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      const r = yield* b.call("GET", `/inbox/rows/${row.approval_id}`)
      expect(r.status).toBe(200)
      const page = r.body
      expect(page).toContain("<h1>Skill put: deploy-notes</h1>")
      expect(page).toContain("<dd>alice</dd>")
      expect(page).toContain("Run `make deploy`.")
      for (const [name, content] of Object.entries({ "SKILL.md": md, ...files })) {
        expect(page).toContain(`<code>${name}</code>`)
        expect(page).toContain(sha256Hex(content))
        const bytes = Buffer.byteLength(content)
        expect(page).toContain(`<td class="num">${bytes}</td>`)
      }
      expect(page).toContain("API_KEY=&lt;YOUR_API_KEY&gt;")
      const total = [md, ...Object.values(files)].reduce((n, s) => n + Buffer.byteLength(s), 0)
      expect(page).toContain(`${total} bytes`)
      expect(page).toContain(skillDigest(md, files))
      expect(page).toContain("approving creates it")
      expect(page).toContain('value="approve"')
      expect(page).toContain('value="deny"')
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("diffs against the installed version line by line, naming added, changed and removed files", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      writeSkill(h.stack.dirs.dropinDir, "tidy", skillMd("tidy", "Tidies.", "# Steps\n\n1. Old step.\n2. Keep me.\n"), { "old.md": "gone soon\n" })
      const row = yield* pushSkill("bob", "tidy", skillMd("tidy", "Tidies.", "# Steps\n\n1. New step.\n2. Keep me.\n"), { "new.md": "fresh\n" })
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      const page = (yield* b.call("GET", `/inbox/rows/${row.approval_id}`)).body
      expect(page).toContain("Line diff against the installed version")
      expect(page).toContain('<span class="remove">-1. Old step.</span>')
      expect(page).toContain('<span class="add">+1. New step.</span>')
      expect(page).toContain('<span class="same"> 2. Keep me.</span>')
      expect(page).toContain("<li><code>new.md</code>: added</li>")
      expect(page).toContain("<li><code>old.md</code>: removed</li>")
      expect(page).toContain("<li><code>SKILL.md</code>: changed</li>")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a delete shows what approval removes", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      writeSkill(h.stack.dirs.dropinDir, "retire-me", skillMd("retire-me", "Old.", "# Old body\n"))
      const row = yield* pushDelete("bob", "retire-me")
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      const page = (yield* b.call("GET", `/inbox/rows/${row.approval_id}`)).body
      expect(page).toContain("<h1>Skill delete: retire-me</h1>")
      expect(page).toContain("What approval removes")
      expect(page).toContain('<span class="remove">-# Old body</span>')
      expect(page).toContain("Approve and delete")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("escapes everything a remote agent wrote", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const md = skillMd("xss-test", "Says <b>hi</b> & \"quotes\"", "<script>alert('x')</script>\n<img src=x onerror=alert(1)>\n")
      const row = yield* pushSkill("alice", "xss-test", md, { "page.html": "</pre><script>alert(2)</script>" })
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      for (const p of ["/inbox", `/inbox/rows/${row.approval_id}`]) {
        const page = (yield* b.call("GET", p)).body
        expect(page).not.toMatch(/<script>alert/)
        expect(page).not.toContain("<img src=x")
        expect(page).not.toContain("<b>hi</b>")
      }
      const card = (yield* b.call("GET", `/inbox/rows/${row.approval_id}`)).body
      expect(card).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
      expect(card).toContain("&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;")
      expect(card).toContain("Says &lt;b&gt;hi&lt;/b&gt; &amp; &quot;quotes&quot;")
      // The only script is the page's own.
      expect(card.match(/<script/g)).toEqual(["<script"])
      expect(card).toContain('<script src="/inbox/static/inbox.js" defer></script>')
    }).pipe(Effect.provide(h.layer))
  })
})

describe("the run approval card", () => {
  it.effect("shows the redacted command and description, the run, the client and Hermes's choices", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const secret = "sk-live0123456789abcdefghijklmnopqrstuv"
      const row = yield* openApproval({
        command: `curl -H 'Authorization: Bearer ${secret}' https://api.example/deploy && echo <done>`,
        description: `deploys with OPENAI_API_KEY=${secret}`,
        choices: ["once", "session", "deny"]
      })
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      for (const p of ["/inbox", `/inbox/rows/${row.id}`]) {
        const page = (yield* b.call("GET", p)).body
        expect(page).not.toContain(secret)
        expect(page).toContain("REDACTED")
      }
      const page = (yield* b.call("GET", `/inbox/rows/${row.id}`)).body
      expect(page).toContain("echo &lt;done&gt;")
      expect(page).toContain("<code>run_0123</code>")
      expect(page).toContain("<dd>laptop</dd>")
      expect(page).toContain("<dd>once, session, deny</dd>")
      expect(page).toContain('value="once"')
      expect(page).toContain('value="session"')
      // Hermes did not offer "always": no button for it.
      expect(page).not.toContain('value="always"')
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("shows invisible characters instead of hiding them", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const row = yield* openApproval({ command: "echo safe\u202Egnp.exe", description: "zero\u200Bwidth" })
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      const page = (yield* b.call("GET", `/inbox/rows/${row.id}`)).body
      expect(page).not.toContain("\u202E")
      expect(page).toContain("echo safe\\u{202E}gnp.exe")
      expect(page).toContain("zero\\u{200B}width")
    }).pipe(Effect.provide(h.layer))
  })
})

describe("decisions", () => {
  it.effect("approving a skill writes exactly the card to disk and sends the operator back to the list", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const md = skillMd("ship-it")
      const row = yield* pushSkill("alice", "ship-it", md, { "steps.md": "1. ship\n" })
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      const r = yield* b.call("POST", `/inbox/rows/${row.approval_id}`, { form: { csrf, decision: "approve" } })
      expect(r.status).toBe(303)
      expect(r.location).toBe(`/inbox?decided=${row.approval_id}`)
      expect(readFolder(path.join(h.stack.dirs.dropinDir, "ship-it"))).toEqual({ "SKILL.md": md, "steps.md": "1. ship\n" })
      expect(yield* rowState(row.approval_id)).toBe("approved")
      const list = (yield* b.call("GET", r.location ?? "")).body
      expect(list).toContain("Approved</span>: Install skill <strong>ship-it</strong>")
      // The decided row's own page has no buttons any more.
      const card = (yield* b.call("GET", `/inbox/rows/${row.approval_id}`)).body
      expect(card).toContain("by admin")
      expect(card).not.toContain('value="approve"')
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("denying writes nothing; deciding twice is refused with bridge.no_pending_request", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const row = yield* pushSkill("alice", "nope", skillMd("nope"))
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      expect((yield* b.call("POST", `/inbox/rows/${row.approval_id}`, { form: { csrf, decision: "deny" } })).status).toBe(303)
      expect(yield* rowState(row.approval_id)).toBe("denied")
      expect(fs.existsSync(path.join(h.stack.dirs.dropinDir, "nope"))).toBe(false)
      const again = yield* b.call("POST", `/inbox/rows/${row.approval_id}`, { form: { csrf, decision: "approve" } })
      expect(again.status).toBe(409)
      expect(again.body).toContain("bridge.no_pending_request")
      expect(fs.existsSync(path.join(h.stack.dirs.dropinDir, "nope"))).toBe(false)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a POST without the session's CSRF token, or from another origin, decides nothing", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const row = yield* pushSkill("alice", "guarded", skillMd("guarded"))
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      const url = `/inbox/rows/${row.approval_id}`
      expect((yield* b.call("POST", url, { form: { decision: "approve" } })).status).toBe(403)
      expect((yield* b.call("POST", url, { form: { csrf: `${csrf}x`, decision: "approve" } })).status).toBe(403)
      expect((yield* b.call("POST", url, { form: { csrf, decision: "approve" }, headers: { origin: "http://evil.example" } })).status).toBe(403)
      expect((yield* b.call("POST", url, { form: { csrf, decision: "approve" }, headers: { "sec-fetch-site": "same-site" } })).status).toBe(403)
      expect(yield* rowState(row.approval_id)).toBe("pending")
      // Without an Origin header (some browsers omit it) the token alone decides.
      expect((yield* b.call("POST", url, { form: { csrf, decision: "approve" }, noOrigin: true })).status).toBe(303)
      expect(yield* rowState(row.approval_id)).toBe("approved")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a decision the row does not take is 422 and changes nothing", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const row = yield* pushSkill("alice", "s", skillMd("s"))
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      for (const decision of ["", "maybe", "session"]) {
        const r = yield* b.call("POST", `/inbox/rows/${row.approval_id}`, { form: { csrf, decision } })
        expect(r.status, decision).toBe(422)
      }
      expect(yield* rowState(row.approval_id)).toBe("pending")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("a run approval's choice goes to Hermes; deny sends deny", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const a = yield* openApproval({ run_id: "run_a", request_id: "ra" })
      const d = yield* openApproval({ run_id: "run_d", request_id: "rd" })
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      expect((yield* b.call("POST", `/inbox/rows/${a.id}`, { form: { csrf, decision: "session" } })).status).toBe(303)
      expect((yield* b.call("POST", `/inbox/rows/${d.id}`, { form: { csrf, decision: "deny" } })).status).toBe(303)
      const calls = yield* Ref.get(h.stack.calls)
      expect(calls.map((c) => [c.requestId, c.choice])).toEqual([["ra", "session"], ["rd", "deny"]])
      const list = (yield* b.call("GET", `/inbox/history`)).body
      expect(section(list, `data-row="${a.id}"`, "</tr>")).toContain("Approved (session)")
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("an unknown row is 404, on GET and POST", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      expect((yield* b.call("GET", "/inbox/rows/apr_missing")).status).toBe(404)
      expect((yield* b.call("POST", "/inbox/rows/apr_missing", { form: { csrf, decision: "approve" } })).status).toBe(404)
      expect((yield* b.call("GET", "/inbox/rows/%E0%A4%A")).status).toBe(404)
      expect((yield* b.call("GET", "/inbox/rows/<script>")).body).not.toContain("<script>")
    }).pipe(Effect.provide(h.layer))
  })
})

describe("assets and odd requests", () => {
  it.effect("serves the page's own stylesheet and script, with the security headers", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const css = yield* b.call("GET", "/inbox/static/inbox.css")
      expect(css.status).toBe(200)
      expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")
      expect(css.body).toContain("prefers-color-scheme")
      const js = yield* b.call("GET", "/inbox/static/inbox.js")
      expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      expect(js.body).toContain("EventSource")
      expect(js.headers.get("x-frame-options")).toBe("DENY")
      expect((yield* b.call("GET", "/inbox/static/favicon.svg")).headers.get("content-type")).toBe("image/svg+xml")
      expect((yield* b.call("GET", "/inbox/static/../../admin.key")).status).toBe(404)
      expect((yield* b.call("GET", "/inbox/static/other.js")).status).toBe(404)
    }).pipe(Effect.provide(h.layer))
  })

  it.effect("unknown paths are 404, other methods 405 with Allow, oversized forms 413", () => {
    const h = makeHarness()
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      expect((yield* b.call("GET", "/inbox/nope")).status).toBe(404)
      const put = yield* b.call("PUT", "/inbox")
      expect(put.status).toBe(405)
      expect(put.headers.get("allow")).toBe("GET")
      expect((yield* b.call("GET", "/inbox/signout")).status).toBe(405)
      expect((yield* b.call("DELETE", "/inbox/rows/apr_x")).headers.get("allow")).toBe("GET, POST")
      const body = `csrf=${"a".repeat(20_000)}`
      const big = yield* b.call("POST", "/inbox/signin", { body, headers: { "content-length": String(body.length) } })
      expect(big.status).toBe(413)
    }).pipe(Effect.provide(h.layer))
  })
})
