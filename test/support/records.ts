/**
 * Whole stored records for tests, from a few overrides: the one place a test spells every field of
 * a row, so that a new column is one line here. `newRun` is a run as a start records it (alice's,
 * on the default profile, running); `runRecord` the same run as the ledger holds it after its first
 * event, through the ledger's own `newRecord` (`src/services/runs/ledgerWrite.ts`); `newConfig` a
 * push config as a task's request gives it (alice's, with its own token, no signing secret).
 */
import { Redacted } from "effect"
import type { NewConfig } from "../../src/services/a2aPush/PushConfigs.ts"
import type { NewRun, RunRecord } from "../../src/services/runs/Ledger.ts"
import { newRecord } from "../../src/services/runs/ledgerWrite.ts"

export const newRun = (runId: string, extra: Partial<NewRun> = {}): NewRun => ({
  runId,
  client: "alice",
  agent: "hermes",
  profile: "default",
  hermesRunId: `h_${runId}`,
  status: "running",
  input: "in",
  instructions: null,
  sessionKey: null,
  reasoningEffort: null,
  idempotencyKey: null,
  fingerprint: "fp",
  face: "mcp",
  started: { type: "run.started", data: {} },
  ...extra
})

/** Run `r1` (or `over.runId`) as stored, created and written at 1 with its first event (seq 1); `over` overrides any field. */
export const runRecord = (over: Partial<RunRecord> = {}): RunRecord => ({
  ...newRecord(newRun(over.runId ?? "r1"), 1),
  lastSeq: 1,
  ...over
})

/** Push config `id` of task `runId` as a put gives it; `over` overrides any field. */
export const newConfig = (runId: string, id: string, over: Partial<NewConfig> = {}): NewConfig => ({
  runId,
  id,
  client: "alice",
  url: "http://127.0.0.1:9/h",
  token: "tok",
  tokenGiven: true,
  authScheme: "",
  authCredentials: "",
  signingSecret: Redacted.make(""),
  ...over
})
