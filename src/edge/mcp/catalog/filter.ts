/**
 * A client's tool filter, with the semantics of Hermes's own MCP client (`mcp_servers.<name>.tools`):
 * a non-empty `include` lists the only tools the client has, and then `exclude` is ignored (include
 * wins); otherwise a non-empty `exclude` removes those tools; with neither, the client has every tool.
 * Names are the tools' real names, never Hermes's sanitized `mcp_<server>_<tool>` form.
 */
export interface ToolFilterSettings {
  readonly include: ReadonlyArray<string>
  readonly exclude: ReadonlyArray<string>
}

export type ToolPredicate = (toolName: string) => boolean

export const NO_FILTER: ToolFilterSettings = { include: [], exclude: [] }

export const toolPredicate = ({ include, exclude }: ToolFilterSettings): ToolPredicate => {
  if (include.length > 0) {
    const allowed = new Set(include)
    return (name) => allowed.has(name)
  }
  if (exclude.length > 0) {
    const denied = new Set(exclude)
    return (name) => !denied.has(name)
  }
  return () => true
}
