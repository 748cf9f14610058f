/** The four tools of the direct memory server (`/mcp/memory/mcp`). */
import memoryAdd from "./memory_add.ts"
import memoryDelete from "./memory_delete.ts"
import memoryList from "./memory_list.ts"
import memorySearch from "./memory_search.ts"

export const memoryTools = [memoryAdd, memorySearch, memoryList, memoryDelete] as const
