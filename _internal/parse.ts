// An internal option of the client's reads, not part of its public API: a
// parse of a 2xx answer's text (a list page, a watch line) in place of
// JSON.parse, so the informer can keep objects as text it has only scanned
// (issue #48). Keyed by a symbol, so no caller sets it by accident and no
// public options type names it.

/** The key of the option on `GetOptions`, `ListOptions` and `WatchOptions`. */
export const PARSE: unique symbol = Symbol("liken.parse");

/**
 * Parses the text of one answer (a whole body, or one watch line). It must
 * throw a `SyntaxError` where `JSON.parse` would, and answer what the
 * caller's code expects in place of the parsed value.
 */
export type Parse = (text: string) => unknown;

/** Options that may carry the internal parse. */
export interface ParseOption {
  [PARSE]?: Parse | undefined;
}
