/**
 * Each tool's human title (`tools/list` `title`): what a client shows in its tool list and approval
 * prompts, where the name alone reads as code. Kept in one table so every tool has one.
 */
export const TOOL_TITLES: Readonly<Record<string, string>> = {
  agents_list: "List Hermes agents",
  agent_capabilities: "Show an agent's capabilities",
  agent_run: "Delegate a task to Hermes",
  agent_run_wait: "Wait for a run",
  agent_run_status: "Read a run's status and output",
  agent_run_events: "Read a run's events",
  agent_run_answer: "Answer a run's question",
  agent_run_steer: "Steer a running run",
  agent_run_stop: "Stop a run",
  agent_runs_list: "List your runs",
  agent_memory_search: "Search an agent's memory",
  agent_memory_add: "Add to an agent's memory",
  agent_skills_list: "List Hermes skills",
  agent_skill_get: "Read a Hermes skill",
  agent_skill_put: "Propose a skill change",
  agent_skill_delete: "Propose deleting a skill",
  memory_search: "Search memory notes",
  memory_list: "List memory notes",
  memory_add: "Add a memory note",
  memory_delete: "Delete a memory note",
  tool_search: "Find tools",
  tool_describe: "Describe tools",
  tool_call: "Call tools"
}

/** The title of a tool; a tool missing from the table (a test's or a benchmark's) gets its name in words. */
export const toolTitle = (name: string): string =>
  TOOL_TITLES[name] ?? name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())
