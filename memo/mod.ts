/**
 * A memo of the resourceVersion of the newest copy of each object the
 * operator wrote or read, and the requests that keep it.
 *
 * @module
 */
export * from "./versions.ts";
export * from "./keys.ts";
