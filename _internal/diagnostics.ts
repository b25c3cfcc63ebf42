/**
 * The one diagnostics convention of the library: every long-lived object
 * takes `log` (lines about what it does; default: none) and `onError`
 * (errors that nothing else reports; default: `console.error`, prefixed with
 * what the object is). A throwing callback never breaks the caller.
 *
 * @module
 */

import { describe } from "./errors.ts";

/** The diagnostics options every long-lived object takes. */
export interface DiagnosticsOptions {
  /** Receives lines about what the object does. Default: none. */
  log?: ((line: string) => void) | undefined;
  /**
   * Receives errors that nothing else reports. Default: `console.error`,
   * prefixed with what the object is.
   */
  onError?: ((error: unknown) => void) | undefined;
}

/** The resolved callbacks: both always present, neither ever throws. */
export interface Diagnostics {
  /** Writes one line. */
  log(line: string): void;
  /** Reports one error. */
  onError(error: unknown): void;
}

/**
 * Resolves the diagnostics options of an object.
 *
 * @param what Names the object in the default error output, such as
 * `Watching default/configmaps`.
 * @param options The caller's callbacks.
 * @returns Callbacks that never throw.
 */
export function diagnostics(
  what: string,
  options: DiagnosticsOptions,
): Diagnostics {
  const log = options.log;
  const onError = options.onError ??
    ((error: unknown): void => {
      // deno-lint-ignore no-console -- the library's one default error sink; callers route it with onError.
      console.error(`${what}: ${describe(error)}`);
    });
  return {
    log(line: string): void {
      if (log === undefined) return;
      try {
        log(line);
      } catch {
        // A failing log must not stop the work it reports on.
      }
    },
    onError(error: unknown): void {
      try {
        onError(error);
      } catch {
        // As above.
      }
    },
  };
}
