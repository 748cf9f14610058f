/** The tools of the `hal0-agents` server (the run tools, then the teach tools), in the documented order (docs/REFERENCE.md). */
import agentCapabilities from "./agent_capabilities.ts"
import agentMemoryAdd from "./agent_memory_add.ts"
import agentMemorySearch from "./agent_memory_search.ts"
import agentRun from "./agent_run.ts"
import agentRunAnswer from "./agent_run_answer.ts"
import agentRunEvents from "./agent_run_events.ts"
import agentRunStatus from "./agent_run_status.ts"
import agentRunSteer from "./agent_run_steer.ts"
import agentRunStop from "./agent_run_stop.ts"
import agentRunWait from "./agent_run_wait.ts"
import agentRunsList from "./agent_runs_list.ts"
import agentSkillDelete from "./agent_skill_delete.ts"
import agentSkillGet from "./agent_skill_get.ts"
import agentSkillPut from "./agent_skill_put.ts"
import agentSkillsList from "./agent_skills_list.ts"
import agentsList from "./agents_list.ts"

export const agentTools = [
  agentsList, agentRun, agentRunWait, agentRunStatus, agentRunEvents, agentRunAnswer, agentRunSteer,
  agentRunStop, agentRunsList,
  agentMemoryAdd, agentMemorySearch, agentSkillsList, agentSkillGet, agentSkillPut, agentSkillDelete,
  agentCapabilities
] as const
