/**
 * Error text shared by the modules.
 *
 * @module
 */

/**
 * The message of an error, or the text of any other thrown value.
 *
 * @param error What was thrown.
 * @returns Its message.
 */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
