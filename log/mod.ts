/**
 * Structured logs: the one {@linkcode Logger} shape every long-lived object
 * of the package takes as its `logger` option (collections, the election,
 * the Event recorder, controllers and their reconcile context, the Manager,
 * the sharder, the webhook and probe servers), and its outputs.
 *
 * - {@linkcode jsonLogger} writes JSON lines as Kubernetes components do
 *   (klog's JSON format: `ts`, `caller`, `msg`, `v` or `err`, then the
 *   fields);
 * - {@linkcode textLogger} writes klog's readable text lines;
 * - {@linkcode sinkLogger} hands each line as a {@linkcode LogRecord} to a
 *   function (another logging library, a test), which may write it with
 *   {@linkcode formatJson} or {@linkcode formatText};
 * - {@linkcode discardLogger} writes nothing.
 *
 * An object given no logger writes no info lines and its errors to
 * `console.error` as text. Errors reach a logger as thrown, with their
 * class; the outputs write their message and never a credential.
 *
 * @example A controller's lines as JSON, at verbosity 2
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonLogger } from "@liken/kubernetes/log";
 *
 * const lines: string[] = [];
 * const logger = jsonLogger({ verbosity: 2, write: (line) => lines.push(line) });
 * logger.with({ controller: "greeting" }).v(2).info("Synced");
 * assert.equal(JSON.parse(lines[0]!).v, 2);
 * ```
 *
 * @module
 */

export {
  discardLogger,
  formatJson,
  formatText,
  jsonLogger,
  type LineLoggerOptions,
  type LogFields,
  type Logger,
  type LoggerOptions,
  type LogRecord,
  sinkLogger,
  textLogger,
} from "../_internal/log.ts";
