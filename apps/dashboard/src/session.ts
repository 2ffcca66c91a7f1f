import type { Dashboard } from "@verbatim/contract";

/** The signed-in dashboard session: its account, its CSRF token and what it may change. */
export type Session = Dashboard.components["schemas"]["Session"];
