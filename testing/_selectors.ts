/**
 * Label and field selectors, parsed the way the API server reads the
 * `labelSelector` and `fieldSelector` query parameters.
 *
 * @module
 */
import { badRequest } from "./_status.ts";
import { own } from "../_internal/own.ts";

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

// Splits at the commas that are not inside a `( … )` value set.
function splitTop(text: string): string[] {
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

function checkValue(value: string, text: string): string {
  if (!VALUE.test(value)) {
    throw badRequest(
      `unable to parse requirement: ${text}: invalid label value: "${value}"`,
    );
  }
  return value;
}

function parseRequirement(text: string): Requirement {
  let m = /^!\s*(\S+)$/.exec(text);
  if (m) return { key: check(m[1]!, text), op: "!exists", values: [] };
  m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(text);
  if (m) {
    const values = m[3]!.split(",").map((v) => checkValue(v.trim(), text));
    return {
      key: check(m[1]!, text),
      op: m[2] as "in" | "notin",
      values,
    };
  }
  m = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(text);
  if (m) {
    return {
      key: check(m[1]!, text),
      op: m[2] === "!=" ? "!=" : "=",
      values: [checkValue(m[3]!.trim(), text)],
    };
  }
  if (KEY.test(text)) return { key: text, op: "exists", values: [] };
  throw badRequest(`unable to parse requirement: ${text}`);
}

function check(key: string, text: string): string {
  if (!KEY.test(key)) {
    throw badRequest(
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
 * Parses a label selector (`a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a`, `!a`); throws a 400 for a malformed one.
 */
export function labelSelector(text: string | null): Matcher | undefined {
  if (text === null || text.trim() === "") return undefined;
  const requirements = splitTop(text).map(parseRequirement);
  return (object) => {
    const labels = labelsOf(object);
    return requirements.every((r) =>
      matches(r, Object.hasOwn(labels, r.key) ? labels[r.key] : undefined)
    );
  };
}

function fieldValue(object: unknown, path: string): string {
  let at: unknown = object;
  for (const part of path.split(".")) {
    if (typeof at !== "object" || at === null) return "";
    at = own(at, part);
  }
  if (at === undefined || at === null) return "";
  return typeof at === "string" ? at : JSON.stringify(at);
}

/**
 * Parses a field selector (`f=v`, `f==v`, `f!=v`, comma-separated).
 * `metadata.name` and `metadata.namespace` work on every resource. With
 * `selectable` (a custom resource's selectable fields, as dotted paths)
 * only those work beside them, and another is refused as the API server
 * refuses it (400, `field label not supported: spec.x`); without it any
 * other dotted path is read from the object too (the API server allows a
 * few per built-in resource, such as `involvedObject.name` on Events).
 */
export function fieldSelector(
  text: string | null,
  selectable?: readonly string[],
): Matcher | undefined {
  if (text === null || text.trim() === "") return undefined;
  const requirements = splitTop(text).map((part) => {
    const m = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) {
      throw badRequest(
        `invalid selector: '${text}'; can't understand '${part}'`,
      );
    }
    return { field: m[1]!, negate: m[2] === "!=", value: m[3]!.trim() };
  });
  if (selectable !== undefined) {
    const allowed = new Set(["metadata.name", "metadata.namespace"]);
    for (const path of selectable) allowed.add(path);
    const refused = requirements.find((r) => !allowed.has(r.field));
    if (refused) {
      throw badRequest(`field label not supported: ${refused.field}`);
    }
  }
  return (object) =>
    requirements.every((r) =>
      (fieldValue(object, r.field) === r.value) !== r.negate
    );
}

/** Both selectors together (either may be absent). */
export function bothSelectors(
  labels: Matcher | undefined,
  fields: Matcher | undefined,
): Matcher {
  return (object) =>
    (labels === undefined || labels(object)) &&
    (fields === undefined || fields(object));
}
