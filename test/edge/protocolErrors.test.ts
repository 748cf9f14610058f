/**
 * A bridge error's kind for a protocol (src/edge/protocolErrors.ts), and both protocol faces'
 * tables over it: MCP Tasks and A2A answer the same kind for the same error.
 */
import { RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors"
import { ProtocolErrorCode } from "@modelcontextprotocol/server"
import { describe, expect, it } from "vitest"
import { type BridgeError, Internal, InvalidInput, RunNotFound, Unavailable } from "../../src/domain/errors.ts"
import { a2aErrorOf } from "../../src/edge/a2a/handler.ts"
import { protocolErrorOf } from "../../src/edge/mcp/tasks/taskMethods.ts"
import { protocolErrorKind } from "../../src/edge/protocolErrors.ts"

const CASES: ReadonlyArray<readonly [BridgeError, string]> = [
  [new RunNotFound({ message: "no run" }), "not_found"],
  [new InvalidInput({ message: "bad" }), "invalid_params"],
  [new Unavailable({ message: "down" }), "internal"],
  [new Internal({ incident: "inc_0123456789abcdef" }), "internal"]
]

describe("bridge errors as protocol errors", () => {
  it("each error has one kind, and both faces answer it", () => {
    for (const [e, kind] of CASES) {
      expect(protocolErrorKind(e), e._tag).toBe(kind)
      const mcp = protocolErrorOf(e, "retrieve")
      const a2a = a2aErrorOf(e, e.message)
      if (kind === "not_found") {
        expect(mcp.message).toMatch(/Task not found/)
        expect(a2a).toBeInstanceOf(TaskNotFoundError)
      } else if (kind === "invalid_params") {
        expect(mcp.code).toBe(ProtocolErrorCode.InvalidParams)
        expect(a2a).toBeInstanceOf(RequestMalformedError)
      } else {
        expect(mcp.code).toBe(ProtocolErrorCode.InternalError)
        expect(a2a).not.toBeInstanceOf(RequestMalformedError)
        expect(a2a).not.toBeInstanceOf(TaskNotFoundError)
      }
    }
  })
})
