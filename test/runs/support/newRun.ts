/** A run as the ledger's tests insert it: alice's, on the default profile, running; `extra` overrides. */
import type { NewRun } from "../../../src/services/runs/Ledger.ts"

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
