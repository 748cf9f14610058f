/**
 * Who is calling: set by the edge from the authenticated key for each request, never from anything
 * the client sends in arguments or headers of its choosing.
 */
import { Context, Layer } from "effect"

/** `a2a`: the A2A face (`/a2a`); `memory`: the memory server. Every key has `agents`. */
export type Scope = "agents" | "memory" | "a2a"

export interface CallerShape {
  /** The client name ("admin" for the admin key). */
  readonly client: string
  /** The admin key sees every client's runs and alone decides inbox rows. */
  readonly isAdmin: boolean
  readonly scopes: ReadonlyArray<Scope>
  /**
   * Set only for an OAuth access token: the resources (RFC 8707) it was issued for. The edge serves
   * such a caller only on those (`edge/http/app.ts`); a key has none and goes everywhere it may.
   */
  readonly audience?: ReadonlyArray<string> | undefined
}

export class Caller extends Context.Tag("agent-bridge/Caller")<Caller, CallerShape>() {
  static admin: CallerShape = { client: "admin", isAdmin: true, scopes: ["agents", "memory", "a2a"] }
  static client = (client: string, scopes: ReadonlyArray<Scope> = ["agents"]): CallerShape => ({
    client,
    isAdmin: false,
    scopes
  })
}

/** `CallerTest`: fakes the authenticated key of a request as `caller` (the admin unless told); records nothing. */
export const CallerTest = (caller: CallerShape = Caller.admin) => Layer.succeed(Caller, caller)
