// Loggers for tests: the old two callbacks (each line as text, each error as
// thrown) behind the one Logger the library takes.
import { formatText, type Logger, type LogRecord, sinkLogger } from "./log.ts";

/** What {@linkcode testLogger} hands on. */
export interface TestLoggerOptions {
  /**
   * Receives every info line (any verbosity) as klog's text without its
   * header: `"Msg" key="value"`.
   */
  log?: ((line: string) => void) | undefined;
  /** Receives the error of each error line, as thrown. */
  onError?: ((error: unknown) => void) | undefined;
  /**
   * Receives every line, info and error, as `log` does (an error line
   * reads `"Msg" err="…" key="value"`).
   */
  all?: ((line: string) => void) | undefined;
}

/** A logger that hands lines and errors to callbacks. */
export function testLogger(options: TestLoggerOptions): Logger {
  const { log, onError, all } = options;
  const body = (record: LogRecord): string => {
    const text = formatText(record);
    return text.slice(text.indexOf("] ") + 2);
  };
  return sinkLogger((record) => {
    if (record.v === undefined) onError?.(record.err);
    else log?.(body(record));
    all?.(body(record));
  }, { verbosity: log === undefined && all === undefined ? -1 : Infinity });
}
