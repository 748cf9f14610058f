#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so `npx agent-bridge` works from a clone without a build step.
import { register } from "tsx/esm/api"
register()
await import("../src/main.ts")
