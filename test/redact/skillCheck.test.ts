/**
 * The skill-push check: where the redactor would mask a value it must be a placeholder. Each
 * placeholder rule has an input that just passes and one that just fails.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction } from "../../src/domain/redact/redact.ts"
import { skillSecretProblem } from "../../src/domain/redact/skillCheck.ts"

const ok = (text: string) => expect(skillSecretProblem("SKILL.md", text), text).toBeNull()
const refused = (text: string) => expect(skillSecretProblem("SKILL.md", text), text).not.toBeNull()

describe("skill-push placeholders", () => {
  it.each([
    // <NAME>
    ["API_KEY=<YOUR_API_KEY>", "API_KEY=<YOUR_API_KEY"],
    ['HF_TOKEN="<your token>"', "HF_TOKEN=<your token>"],
    ['HF_TOKEN="<your token>"', "HF_TOKEN=<hf_...>"],
    ['HF_TOKEN="<token from the settings page>"', 'HF_TOKEN="<$(cat ~/.token)>"'],
    ['HF_TOKEN="<your token>"', 'HF_TOKEN="<your `token`>"'],
    // $ENV_VAR / ${ENV_VAR}
    ["HF_TOKEN=$API_KEY", "HF_TOKEN=$Api_Key"],
    ["HF_TOKEN=$api_key", "HF_TOKEN=$API_KEY/x"],
    ["HF_TOKEN=${API_KEY}", "HF_TOKEN=${Api_Key}"],
    ["HF_TOKEN=$HF_TOKEN", "HF_TOKEN=$hf_token"],
    ["HF_TOKEN=$HF_TOKEN", "HF_TOKEN=$hf_..."],
    // YOUR_KEY
    ["HF_TOKEN=YOUR_KEY", "HF_TOKEN=Your_Key"],
    ["HF_TOKEN=YOUR_HF_TOKEN", "HF_TOKEN=YOUR_"],
    // ..., xxx, ***, TODO, CHANGEME
    ["HF_TOKEN=...", "HF_TOKEN=.."],
    ["HF_TOKEN=xxx", "HF_TOKEN=xx"],
    ["HF_TOKEN=***", "HF_TOKEN=**x"],
    ["HF_TOKEN=TODO", "HF_TOKEN=TODO1"],
    ["HF_TOKEN=CHANGEME", "HF_TOKEN=CHANGEME1"],
    // quoted phrases
    ['HF_TOKEN="your api key"', "HF_TOKEN=your api key"],
    ['HF_TOKEN="paste your token here"', 'HF_TOKEN="correct horse battery staple"'],
    // authorization
    ["Authorization: Bearer <token>", "Authorization: Bearer abc123"],
    ["curl -H 'Authorization: Bearer $HF_TOKEN'", "curl -H 'Authorization: Bearer abc123…'"],
    // shapes
    ["postgres://user:${DB_PASSWORD}@db/app", "postgres://user:pa55word@db/app"],
    ["-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----\nMIIBVQ\n-----END PRIVATE KEY-----"],
    ["GITHUB_TOKEN=<YOUR_GITHUB_TOKEN>", "use ghp_0123456789abcdefghijABCDEFGHIJ0123 here"]
  ])("passes %j, refuses %j", (pass, fail) => {
    ok(pass)
    refused(fail)
  })

  it("passes ordinary skill text", () => {
    ok([
      "---", "name: hf-upload", "description: Upload a model to the Hub", "---",
      "Set `HF_TOKEN` first, then:", "```python", "import os", "token = os.environ[\"HF_TOKEN\"]",
      "headers = {\"Authorization\": f\"Bearer {token}\"}", "max_tokens = 100", "```",
      "```yaml", "env:", "  HF_TOKEN: ${{ secrets.HF_TOKEN }}", "```",
      "```sh", "curl -H \"Authorization: Bearer $HF_TOKEN\" https://huggingface.co/api/whoami-v2", "```"
    ].join("\n"))
  })

  it("names the file and the line, and never echoes the value", () => {
    const message = skillSecretProblem("notes.md", "# Notes\n\nexport HF_TOKEN=hunter2hunter2\n")
    expect(message).toMatch(/^'notes\.md' holds secret-shaped text the inbox card would mask; line 3: the value of HF_TOKEN is not a placeholder .*; use a placeholder such as <YOUR_API_KEY> or \$ENV_VAR$/)
    expect(message).not.toContain("hunter2")
    expect(skillSecretProblem("SKILL.md", "a token: ghp_0123456789abcdefghijABCDEFGHIJ0123")).toContain("line 1: it holds a GitHub token")
  })

  it("refuses a secret the bridge holds, through the Redaction", () => {
    const r = makeRedaction(["operator-admin-key-42"])
    expect(r.skillProblem("SKILL.md", "the key is operator-admin-key-42")).toContain("it holds a secret the bridge holds")
    expect(r.skillProblem("SKILL.md", "the key is somewhere else")).toBeNull()
  })
})
