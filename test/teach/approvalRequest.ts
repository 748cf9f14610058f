/** A run-approval request as the follower hands it to the inbox (the run-approval tests' fixture). */
import type { RunApprovalInput } from "../../src/services/inbox/Inbox.ts"

export const approvalRequest = (over: Partial<RunApprovalInput> = {}): RunApprovalInput => ({
  run_id: "run_0123456789abcdef0123456789abcdef",
  client: "alice",
  agent: "hermes/coder",
  hermes_run_id: "hr_1",
  request_id: "req_1",
  command: "rm -rf ./build",
  description: "clean the build folder",
  choices: ["once", "session", "always", "deny"],
  ...over
})
