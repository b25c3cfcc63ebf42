// Label selectors as the API server reads them (`a=b`, `a==b`, `a!=b`,
// `a in (x,y)`, `a notin (x)`, `a`, `!a`): for the fake API server, and for
// the cached reads that filter a store the way a list would.

/** A parsed selector: answers whether an object matches. */
export type Matcher = (object: unknown) => boolean;

type Op = "=" | "!=" | "in" | "notin" | "exists" | "!exists";

interface Requirement {
  key: string;
  op: Op;
  values: string[];
}

function labelsOf(object: unknown): Record<string, string> {
  const meta = (object as { metadata?: { labels?: Record<string, string> } })
    ?.metadata;
  return meta?.labels ?? {};
}

/** Splits at the commas that are not inside a `( … )` value set. */
export function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((s) => s.trim()).filter((s) => s !== "");
}

const KEY = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkValue(
  value: string,
  text: string,
  fail: (message: string) => Error,
): string {
  if (!VALUE.test(value)) {
    throw fail(
      `unable to parse requirement: ${text}: invalid label value: "${value}"`,
    );
  }
  return value;
}

function parseRequirement(
  text: string,
  fail: (message: string) => Error,
): Requirement {
  let m = /^!\s*(\S+)$/.exec(text);
  if (m) return { key: check(m[1]!, text, fail), op: "!exists", values: [] };
  m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(text);
  if (m) {
    const values = m[3]!.split(",").map((v) =>
      checkValue(v.trim(), text, fail)
    );
    return {
      key: check(m[1]!, text, fail),
      op: m[2] as "in" | "notin",
      values,
    };
  }
  m = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(text);
  if (m) {
    return {
      key: check(m[1]!, text, fail),
      op: m[2] === "!=" ? "!=" : "=",
      values: [checkValue(m[3]!.trim(), text, fail)],
    };
  }
  if (KEY.test(text)) return { key: text, op: "exists", values: [] };
  throw fail(`unable to parse requirement: ${text}`);
}

function check(
  key: string,
  text: string,
  fail: (message: string) => Error,
): string {
  if (!KEY.test(key)) {
    throw fail(
      `unable to parse requirement: ${text}: invalid label key "${key}"`,
    );
  }
  return key;
}

function matches(r: Requirement, value: string | undefined): boolean {
  switch (r.op) {
    case "=":
      return value === r.values[0];
    case "!=":
      return value !== r.values[0];
    case "in":
      return value !== undefined && r.values.includes(value);
    case "notin":
      return value === undefined || !r.values.includes(value);
    case "exists":
      return value !== undefined;
    case "!exists":
      return value === undefined;
  }
}

/**
 * Parses a label selector; `undefined` for an empty one. A malformed one
 * throws what `fail` makes of the API server's message.
 */
export function labelMatcher(
  text: string | null | undefined,
  fail: (message: string) => Error,
): Matcher | undefined {
  if (text === null || text === undefined || text.trim() === "") {
    return undefined;
  }
  const requirements = splitTop(text).map((part) =>
    parseRequirement(part, fail)
  );
  return (object) => {
    const labels = labelsOf(object);
    return requirements.every((r) =>
      matches(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)
    );
  };
}
