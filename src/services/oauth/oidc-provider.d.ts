/**
 * The few parts of `oidc-provider` (which ships no types) the bridge uses, typed loosely: the
 * provider is configured in one place (`OAuth.ts`) and reached through `OAuthShape` only.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"
  export interface InteractionDetails {
    readonly uid: string
    readonly params: Record<string, unknown>
  }
  export interface FoundAccessToken {
    readonly accountId: string
    readonly aud?: string | ReadonlyArray<string>
    readonly scope?: string
    readonly isExpired: boolean
  }
  export default class Provider {
    constructor(issuer: string, configuration: unknown)
    proxy: boolean
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void> | void
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>
    interactionResult(req: IncomingMessage, res: ServerResponse, result: unknown, options?: { mergeWithLastSubmission?: boolean }): Promise<string>
    readonly Client: { find(id: string): Promise<{ metadata(): Record<string, unknown> } | undefined> }
    readonly AccessToken: { find(token: string): Promise<FoundAccessToken | undefined> }
    readonly Grant: new (init: { accountId: string; clientId: string }) => {
      addOIDCScope(scope: string): void
      addResourceScope(resource: string, scope: string): void
      save(): Promise<string>
    }
  }
  export const errors: {
    InvalidTarget: new (description?: string) => Error
    InvalidRedirectUri: new (description?: string) => Error
  }
}
