/** Hermes outage and restart, new protocol generation (the suite: `support/hermesOutageSuite.ts`). */
import { hermesOutageSuite } from "./support/hermesOutageSuite.ts"

hermesOutageSuite("new")
