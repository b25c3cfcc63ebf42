/**
 * The one logging shape of the library, after logr and klog: a
 * {@linkcode Logger} writes informational lines at a verbosity (`v`) and
 * error lines with an error (`err`), each a message and key-value fields; a
 * logger derived with {@linkcode Logger.with} carries more fields, one
 * derived with {@linkcode Logger.v} writes at a higher verbosity.
 *
 * Every long-lived object of the library takes one `logger` option. Without
 * it, info lines go nowhere and error lines go to `console.error` as
 * {@linkcode textLogger} writes them.
 *
 * @module
 */

import { describe } from "./errors.ts";
import { redactCredentials } from "./redact.ts";

/** The key-value pairs of a log line: its structured part. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * A structured logger, as logr's: info lines at a verbosity, error lines
 * with their error, both with fields. A logger never throws to its caller.
 *
 * @example Derive loggers and write both kinds of line
 * ```ts
 * import assert from "node:assert/strict";
 * import { type LogRecord, sinkLogger } from "@liken/kubernetes/log";
 *
 * const records: LogRecord[] = [];
 * const logger = sinkLogger((record) => records.push(record), { verbosity: 1 })
 *   .with({ controller: "greeting" });
 * logger.info("Started", { workers: 2 });
 * logger.v(1).info("Synced");
 * logger.v(2).info("Not written: verbosity 2 is above 1");
 * logger.error(new Error("boom"), "Reconciler error", { name: "hello" });
 * assert.deepEqual(records.map((r) => [r.msg, r.v]), [
 *   ["Started", 0],
 *   ["Synced", 1],
 *   ["Reconciler error", undefined],
 * ]);
 * assert.deepEqual(records[2]!.fields, { controller: "greeting", name: "hello" });
 * assert.equal((records[2]!.err as Error).message, "boom");
 * ```
 */
export interface Logger {
  /**
   * Writes an informational line at this logger's verbosity (0 unless
   * derived with {@linkcode Logger.v}), if the output is that verbose.
   */
  info(msg: string, fields?: LogFields): void;
  /**
   * Writes an error line, whatever the verbosity. `err` keeps its class for
   * an output that reads it; the written `err` is its message.
   */
  error(err: unknown, msg: string, fields?: LogFields): void;
  /**
   * A logger whose info lines are `level` more verbose than this one's
   * (klog's `V(level)`: 0 always, 2 steady-state detail, 4 debugging).
   */
  v(level: number): Logger;
  /** A logger that adds `fields` to every line (logr's `WithValues`). */
  with(fields: LogFields): Logger;
  /** Whether this logger's info lines are written at all. */
  enabled(): boolean;
}

/** One line as a {@linkcode sinkLogger}'s sink receives it. */
export interface LogRecord {
  /** When it was written, in milliseconds since the epoch (`Date.now()`). */
  time: number;
  /**
   * Where it was written from: the folder and file of the calling code and
   * the line, such as `controller/controller.ts:120`; `undefined` when the
   * stack does not tell.
   */
  caller: string | undefined;
  /** The message. */
  msg: string;
  /** The verbosity of an info line; `undefined` on an error line. */
  v: number | undefined;
  /** The error of an error line (as thrown); `undefined` on an info line. */
  err: unknown;
  /** The fields: the logger's own first, then the line's (the later wins). */
  fields: LogFields;
}

/**
 * Options of {@linkcode sinkLogger}, {@linkcode jsonLogger} and
 * {@linkcode textLogger}.
 */
export interface LoggerOptions {
  /**
   * The highest verbosity of info lines that are written (klog's `-v`);
   * error lines are always written. Default: 0.
   */
  verbosity?: number | undefined;
}

/** Options of {@linkcode jsonLogger} and {@linkcode textLogger}. */
export interface LineLoggerOptions extends LoggerOptions {
  /** Receives each formatted line (no newline). Default: `console.error`. */
  write?: ((line: string) => void) | undefined;
}

const HERE = import.meta.url;

/** `dir/file.ts:line` of the first stack frame outside this module. */
function callerOf(stack: string | undefined): string | undefined {
  if (stack === undefined) return undefined;
  for (const frame of stack.split("\n").slice(1)) {
    const found = /\(?([a-z]+:[^\s()]+):(\d+):\d+\)?\s*$/.exec(frame);
    if (found === null) continue;
    const url = found[1]!;
    if (url === HERE || url.startsWith("ext:")) continue;
    const parts = url.split(/[/\\]/);
    return `${parts.slice(-2).join("/")}:${found[2]}`;
  }
  return undefined;
}

class SinkLogger implements Logger {
  #sink: (record: LogRecord) => void;
  #verbosity: number;
  #level: number;
  #fields: LogFields;

  constructor(
    sink: (record: LogRecord) => void,
    verbosity: number,
    level: number,
    fields: LogFields,
  ) {
    this.#sink = sink;
    this.#verbosity = verbosity;
    this.#level = level;
    this.#fields = fields;
  }

  info(msg: string, fields?: LogFields): void {
    if (this.#level > this.#verbosity) return;
    this.#write(msg, this.#level, undefined, fields);
  }

  error(err: unknown, msg: string, fields?: LogFields): void {
    this.#write(msg, undefined, err, fields);
  }

  v(level: number): Logger {
    if (!(level > 0)) return this;
    return new SinkLogger(
      this.#sink,
      this.#verbosity,
      this.#level + level,
      this.#fields,
    );
  }

  with(fields: LogFields): Logger {
    return new SinkLogger(this.#sink, this.#verbosity, this.#level, {
      ...this.#fields,
      ...fields,
    });
  }

  enabled(): boolean {
    return this.#level <= this.#verbosity;
  }

  #write(
    msg: string,
    v: number | undefined,
    err: unknown,
    fields: LogFields | undefined,
  ): void {
    try {
      this.#sink({
        time: Date.now(),
        caller: callerOf(new Error().stack),
        msg,
        v,
        err,
        fields: fields === undefined ? this.#fields : {
          ...this.#fields,
          ...fields,
        },
      });
    } catch {
      // A failing output must not stop the work it reports on.
    }
  }
}

/**
 * A logger that hands each line, as a {@linkcode LogRecord}, to `sink`: the
 * way to route the library's lines to another logging library or to read
 * them in a test. A sink that throws loses its line, nothing else.
 *
 * @example Collect the errors an object reports
 * ```ts
 * import assert from "node:assert/strict";
 * import { sinkLogger } from "@liken/kubernetes/log";
 *
 * const errors: unknown[] = [];
 * const logger = sinkLogger((record) => {
 *   if (record.v === undefined) errors.push(record.err);
 * });
 * logger.info("Not an error");
 * logger.error(new TypeError("bad"), "Failed");
 * assert.ok(errors[0] instanceof TypeError);
 * ```
 *
 * @param sink Receives each line that the verbosity lets through.
 * @param options The verbosity.
 * @returns The logger.
 */
export function sinkLogger(
  sink: (record: LogRecord) => void,
  options: LoggerOptions = {},
): Logger {
  return new SinkLogger(sink, options.verbosity ?? 0, 0, {});
}

/**
 * A logger that writes nothing (logr's `Discard`).
 *
 * @example Silence an object's errors
 * ```ts
 * import assert from "node:assert/strict";
 * import { discardLogger } from "@liken/kubernetes/log";
 *
 * const logger = discardLogger();
 * logger.error(new Error("nobody hears this"), "Failed");
 * assert.equal(logger.enabled(), false);
 * ```
 *
 * @returns The logger.
 */
export function discardLogger(): Logger {
  return DISCARD;
}

const DISCARD: Logger = {
  info(): void {},
  error(): void {},
  v(): Logger {
    return DISCARD;
  },
  with(): Logger {
    return DISCARD;
  },
  enabled(): boolean {
    return false;
  },
};

// Field names whose values are credentials wherever they appear.
const SECRET_KEY =
  /^(?:authorization|token|bearer|password|secret|credentials?)$|(?:Token|Password|Secret)$/i;

/** A field's value as the outputs write it: credentials gone. */
function clean(key: string, value: unknown): unknown {
  if (SECRET_KEY.test(key)) return "[redacted]";
  if (typeof value === "string") return redactCredentials(value);
  if (value instanceof Error) return redactCredentials(describe(value));
  return value;
}

/** JSON text of a value, never throwing (a cycle or a BigInt included). */
function json(value: unknown): string {
  try {
    const text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === "bigint") return item.toString();
      if (item instanceof Error) return describe(item);
      if (typeof item === "string") return redactCredentials(item);
      return item;
    });
    return text === undefined ? "null" : text;
  } catch {
    return JSON.stringify(redactCredentials(String(value)));
  }
}

/**
 * One record as a JSON line of klog's format (what {@linkcode jsonLogger}
 * writes), for a {@linkcode sinkLogger} that writes elsewhere or twice.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatJson } from "@liken/kubernetes/log";
 *
 * const line = formatJson({
 *   time: 1_700_000_000_500,
 *   caller: "controller/controller.ts:42",
 *   msg: "Reconciler error",
 *   v: undefined,
 *   err: new Error("timeout"),
 *   fields: { controller: "greeting", attempt: 2 },
 * });
 * assert.equal(
 *   line,
 *   '{"ts":1700000000.5,"caller":"controller/controller.ts:42","msg":"Reconciler error","err":"timeout","controller":"greeting","attempt":2}',
 * );
 * ```
 *
 * @param record The line.
 * @returns Its JSON text, without a newline.
 */
export function formatJson(record: LogRecord): string {
  let line = `{"ts":${json(record.time / 1000)}`;
  if (record.caller !== undefined) line += `,"caller":${json(record.caller)}`;
  line += `,"msg":${json(redactCredentials(record.msg))}`;
  if (record.v !== undefined) line += `,"v":${record.v}`;
  else line += `,"err":${json(redactCredentials(describe(record.err)))}`;
  for (const [key, value] of Object.entries(record.fields)) {
    line += `,${json(key)}:${json(clean(key, value))}`;
  }
  return `${line}}`;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/**
 * One record as a line of klog's text format, in UTC (what
 * {@linkcode textLogger} writes).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatText } from "@liken/kubernetes/log";
 *
 * const line = formatText({
 *   time: Date.parse("2030-01-02T03:04:05.678Z"),
 *   caller: "controller/controller.ts:42",
 *   msg: "Synced",
 *   v: 0,
 *   err: undefined,
 *   fields: { controller: "greeting", workers: 2 },
 * });
 * assert.equal(line, 'I0102 03:04:05.678000 controller/controller.ts:42] "Synced" controller="greeting" workers=2');
 * ```
 *
 * @param record The line.
 * @returns Its text, without a newline.
 */
export function formatText(record: LogRecord): string {
  const at = new Date(record.time);
  const header = `${record.v === undefined ? "E" : "I"}${
    pad(at.getUTCMonth() + 1)
  }${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${
    pad(at.getUTCMinutes())
  }:${pad(at.getUTCSeconds())}.${pad(at.getUTCMilliseconds(), 3)}000`;
  let line = `${header} ${record.caller ?? "?"}] ${
    json(redactCredentials(record.msg))
  }`;
  if (record.v === undefined) {
    line += ` err=${json(redactCredentials(describe(record.err)))}`;
  }
  for (const [key, value] of Object.entries(record.fields)) {
    line += ` ${key}=${json(clean(key, value))}`;
  }
  return line;
}

function lineLogger(
  format: (record: LogRecord) => string,
  options: LineLoggerOptions,
): Logger {
  const write = options.write ??
    ((line: string): void => {
      // deno-lint-ignore no-console -- klog's default output is stderr.
      console.error(line);
    });
  return sinkLogger((record) => write(format(record)), options);
}

/**
 * A logger that writes JSON lines as Kubernetes components do with
 * `--logging-format=json` (klog's JSON format): `ts` (seconds since the
 * epoch, a float), `caller`, `msg`, then `v` on an info line or `err` (the
 * error's message) on an error line, then the fields; no level key.
 * Credentials (a field named like `token` or `password`, an
 * `Authorization` value in any text) are written as `[redacted]`.
 *
 * @example One info line
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonLogger } from "@liken/kubernetes/log";
 *
 * const lines: string[] = [];
 * const logger = jsonLogger({ write: (line) => lines.push(line) });
 * logger.with({ controller: "greeting" }).info("Started", { workers: 2 });
 * const line = JSON.parse(lines[0]!);
 * assert.deepEqual(Object.keys(line), ["ts", "caller", "msg", "v", "controller", "workers"]);
 * assert.equal(line.msg, "Started");
 * ```
 *
 * @param options The verbosity and where lines go (default: stderr).
 * @returns The logger.
 */
export function jsonLogger(options: LineLoggerOptions = {}): Logger {
  return lineLogger(formatJson, options);
}

/**
 * A logger that writes readable lines as klog's text format does: a header
 * (`I` or `E`, the date and time in UTC, the caller), the quoted message,
 * `err=` on an error line, then `key=value` fields (strings quoted). It
 * redacts credentials as {@linkcode jsonLogger} does.
 *
 * @example One error line
 * ```ts
 * import assert from "node:assert/strict";
 * import { textLogger } from "@liken/kubernetes/log";
 *
 * const lines: string[] = [];
 * const logger = textLogger({ write: (line) => lines.push(line) });
 * logger.error(new Error("timeout"), "Reconciler error", { name: "hello" });
 * assert.match(lines[0]!, /^E\d{4} [\d:.]+ \S+\] "Reconciler error" err="timeout" name="hello"$/);
 * ```
 *
 * @param options The verbosity and where lines go (default: stderr).
 * @returns The logger.
 */
export function textLogger(options: LineLoggerOptions = {}): Logger {
  return lineLogger(formatText, options);
}

/** A logger of someone else's making, made unable to throw. */
class GuardedLogger implements Logger {
  #inner: Logger;

  constructor(inner: Logger) {
    this.#inner = inner;
  }

  info(msg: string, fields?: LogFields): void {
    try {
      this.#inner.info(msg, fields);
    } catch {
      // As in SinkLogger.
    }
  }

  error(err: unknown, msg: string, fields?: LogFields): void {
    try {
      this.#inner.error(err, msg, fields);
    } catch {
      // As above.
    }
  }

  v(level: number): Logger {
    try {
      return new GuardedLogger(this.#inner.v(level));
    } catch {
      return DISCARD;
    }
  }

  with(fields: LogFields): Logger {
    try {
      return new GuardedLogger(this.#inner.with(fields));
    } catch {
      return DISCARD;
    }
  }

  enabled(): boolean {
    try {
      return this.#inner.enabled();
    } catch {
      return false;
    }
  }
}

/**
 * The logger an object writes to: the caller's `logger` (or the default,
 * errors only to `console.error`), with the object's own fields.
 */
export function loggerOf(
  logger: Logger | undefined,
  fields: LogFields = {},
): Logger {
  const base = logger === undefined
    ? textLogger({ verbosity: -1 })
    : logger instanceof SinkLogger || logger instanceof GuardedLogger ||
        logger === DISCARD
    ? logger
    : new GuardedLogger(logger);
  return Object.keys(fields).length === 0 ? base : base.with(fields);
}

/**
 * An `onError` callback for internals that report errors one by one: each
 * becomes an error line with the message `messageOf` gives it. Declared
 * here so that the line's caller is the code that called the callback.
 */
export function errorReporter(
  logger: Logger,
  messageOf: (error: unknown) => string,
): (error: unknown) => void {
  return (error) => logger.error(error, messageOf(error));
}
