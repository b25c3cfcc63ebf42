// The API server's `Warning` response headers (RFC 7234 section 5.5, as
// Kubernetes sends them since 1.19): `299 - "text"`, several joined by
// commas. Parsed as client-go's ParseWarningHeaders does: a malformed entry
// ends the parse and keeps what came before; only code 299 counts.
import { redact } from "../_internal/redact.ts";
import { MAX_WARNING_BYTES, MAX_WARNINGS } from "./_limits.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The warning texts of a `Warning` header value, or `undefined` for none,
 * without the request's credential (removed before each text is cut).
 */
export function parseWarnings(
  header: string,
  authorization?: string,
): string[] | undefined {
  const texts: string[] = [];
  let at = 0;
  const length = header.length;
  while (at < length && texts.length < MAX_WARNINGS) {
    // Separators and spaces between entries.
    while (at < length && (header[at] === "," || isSpace(header[at]!))) at++;
    if (at >= length) break;
    // warn-code SP warn-agent SP warn-text [SP warn-date]
    const code = header.slice(at, at + 3);
    if (!/^\d{3}$/.test(code) || header[at + 3] !== " ") break;
    at += 4;
    const agentEnd = header.indexOf(" ", at);
    if (agentEnd <= at) break;
    at = agentEnd + 1;
    const text = quoted(header, at);
    if (text === undefined) break;
    at = text.end;
    if (header[at] === " ") {
      const date = quoted(header, at + 1);
      if (date !== undefined) at = date.end;
    }
    while (at < length && isSpace(header[at]!)) at++;
    if (at < length && header[at] !== ",") break;
    if (code === "299" && text.value !== "") {
      texts.push(clean(text.value, authorization));
    }
  }
  return texts.length === 0 ? undefined : texts;
}

/** A quoted-string at `at`, unescaped, and the index after its closing quote. */
function quoted(
  header: string,
  at: number,
): { value: string; end: number } | undefined {
  if (header[at] !== '"') return undefined;
  let value = "";
  for (let i = at + 1; i < header.length; i++) {
    const char = header[i]!;
    if (char === '"') return { value, end: i + 1 };
    if (char === "\\") {
      i++;
      if (i >= header.length) return undefined;
      value += header[i];
    } else value += char;
  }
  return undefined;
}

function isSpace(char: string): boolean {
  return char === " " || char === "\t";
}

/**
 * A header value arrives as one character a byte (Latin-1); the API server
 * sends UTF-8, so the bytes are read as UTF-8 when they are, cut to
 * MAX_WARNING_BYTES on a character boundary (ending in "…" when cut), and
 * control characters, which could steer a terminal, are replaced.
 */
function clean(raw: string, authorization: string | undefined): string {
  const bytes = new Uint8Array(raw.length);
  let latin1 = true;
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code > 0xff) latin1 = false;
    bytes[i] = code;
  }
  let text = raw;
  if (latin1) {
    try {
      text = utf8.decode(bytes);
    } catch {
      // Not UTF-8: the characters as they came.
    }
  }
  // Every control character (C0, DEL, C1) but the tab.
  text = text.replace(/[^\P{Cc}\t]/gu, "\ufffd");
  return cut(redact(text, authorization));
}

/** `text` cut to at most MAX_WARNING_BYTES of UTF-8, on a character boundary. */
function cut(text: string): string {
  // Each UTF-16 unit is at most 3 bytes of UTF-8.
  if (text.length * 3 <= MAX_WARNING_BYTES) return text;
  const encoded = new TextEncoder().encode(text);
  if (encoded.length <= MAX_WARNING_BYTES) return text;
  // Room for the three bytes of "…".
  let end = MAX_WARNING_BYTES - 3;
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return `${new TextDecoder().decode(encoded.subarray(0, end))}…`;
}
