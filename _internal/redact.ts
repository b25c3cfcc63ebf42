// The one place a server's text loses the request's credential before it is
// cut for an error message. Redaction always runs before the cut, on a window
// long enough to hold the credential's longest written form, so a credential
// that straddles the cut cannot leave a part behind.

const MARK = "[redacted]";

// The longest form of one character in JSON text escaped twice: `\u00XX`
// with each of its six characters escaped again as `\u00XX`.
const WIDEST = 36;

/**
 * How far past a cut a text must be read so that a credential starting
 * before the cut is seen whole, in any form (at most 36 characters or UTF-8
 * bytes per character of a Latin-1 credential, `\u00XX` escaped again).
 */
export function slackFor(authorization: string | undefined): number {
  return authorization === undefined ? 0 : authorization.length * WIDEST;
}

/**
 * Removes the request's credential from a text the server sent (a server or
 * proxy may echo the `Authorization` header, or a `Status` may quote it): the
 * whole header value, and the credential alone when it has 8 characters or
 * more (a shorter one would blank out ordinary words, and no real token is so
 * short). Both are found raw and in any JSON-escaped spelling (`\/`, `\"`,
 * `\\` or `\uXXXX` for any of their characters), escaped once or twice.
 *
 * `complete` false says the text is the start of a longer one: its last
 * {@linkcode slackFor} characters may be the start of a credential that goes
 * on past the end, so they are dropped.
 */
export function redact(
  text: string,
  authorization: string | undefined,
  complete = true,
): string {
  if (authorization === undefined) return text;
  const safeEnd = complete
    ? text.length
    : Math.max(0, text.length - slackFor(authorization));
  if (text === "") return text;
  const space = authorization.indexOf(" ");
  const credential = authorization.slice(space + 1);
  const needles = credential.length >= 8 && credential !== authorization
    ? [authorization, credential]
    : [authorization];
  // Unescape, remembering where each plain character began, so one linear
  // search finds every spelling; twice, for JSON quoted inside a JSON
  // string (a Status inside a webhook's or proxy's message).
  const once = unescapeJson(text);
  const twice = unescapeJson(once.plain);
  const plain = twice.plain;
  const origin = (i: number): number => {
    const j = twice.starts === undefined
      ? i
      : i < twice.starts.length
      ? twice.starts[i]!
      : once.plain.length;
    return once.starts === undefined
      ? j
      : j < once.starts.length
      ? once.starts[j]!
      : text.length;
  };
  const spans: [number, number][] = [];
  for (const needle of needles) {
    let from = 0;
    for (;;) {
      const at = plain.indexOf(needle, from);
      if (at === -1) break;
      const end = at + needle.length;
      spans.push([origin(at), origin(end)]);
      from = end;
    }
  }
  if (spans.length === 0) return text.slice(0, safeEnd);
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    if (start >= safeEnd) break;
    if (end <= at) continue; // inside a span already marked (the header's)
    if (start > at) out += text.slice(at, start);
    out += MARK;
    at = end;
  }
  if (at < safeEnd) out += text.slice(at, safeEnd);
  return out;
}

/**
 * Redacts, then keeps at most `limit` characters (with `…` when it cut).
 * A text only part of which was read passes `complete` false.
 */
export function excerpt(
  text: string,
  authorization: string | undefined,
  limit: number,
): string {
  // Only the window that can reach the result is scanned: a watch line may
  // be megabytes long.
  const window = limit + 1 + slackFor(authorization);
  const whole = text.length <= window;
  const clean = redact(
    whole ? text : text.slice(0, window),
    authorization,
    whole,
  )
    .trim();
  return clean.length > limit || !whole ? `${clean.slice(0, limit)}…` : clean;
}

/**
 * A parsed JSON value with {@linkcode redact} applied to every string in it
 * (a copy where one changed), for a `Status` a watch's ERROR event carries.
 */
export function redactStrings(
  value: unknown,
  authorization: string | undefined,
): unknown {
  if (authorization === undefined) return value;
  if (typeof value === "string") return redact(value, authorization);
  if (Array.isArray(value)) {
    return value.map((item) => redactStrings(item, authorization));
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: a key named `__proto__` stays a field.
      Object.defineProperty(out, key, {
        value: redactStrings(item, authorization),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

const ESCAPED: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

const HEX = /^[0-9A-Fa-f]{4}$/;

/**
 * JSON string escapes undone, with each plain character's start in `text`
 * (none when nothing was escaped: positions are their own).
 */
function unescapeJson(
  text: string,
): { plain: string; starts: number[] | undefined } {
  if (text.indexOf("\\") === -1) return { plain: text, starts: undefined };
  const chars: string[] = [];
  const starts: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length) {
      const next = text[i + 1]!;
      if (next === "u") {
        const hex = text.slice(i + 2, i + 6);
        if (HEX.test(hex)) {
          chars.push(String.fromCharCode(parseInt(hex, 16)));
          starts.push(i);
          i += 6;
          continue;
        }
      } else if (Object.hasOwn(ESCAPED, next)) {
        chars.push(ESCAPED[next]!);
        starts.push(i);
        i += 2;
        continue;
      }
    }
    chars.push(c);
    starts.push(i);
    i += 1;
  }
  return { plain: chars.join(""), starts };
}

// An Authorization value written out: the scheme, then a token of at least
// 8 characters (shorter ones are not real credentials, as above).
const AUTHORIZATION = /\b(?:Bearer|Basic)\s+[A-Za-z0-9\-._~+/]{8,}=*/g;

/**
 * Removes every `Bearer` or `Basic` credential written in a text whose
 * request is unknown (a log line), in any spelling {@linkcode redact} finds.
 */
export function redactCredentials(text: string): string {
  if (!text.includes("Bearer") && !text.includes("Basic")) return text;
  // Found in the text unescaped too, so an escaped character does not cut
  // a credential short; redact() then finds every spelling of it.
  const plain = unescapeJson(unescapeJson(text).plain).plain;
  const found = new Set([
    ...(text.match(AUTHORIZATION) ?? []),
    ...(plain.match(AUTHORIZATION) ?? []),
  ]);
  // The longest first: a credential's prefix must not leave its tail.
  let out = text;
  for (const value of [...found].sort((a, b) => b.length - a.length)) {
    out = redact(out, value);
  }
  return out;
}
