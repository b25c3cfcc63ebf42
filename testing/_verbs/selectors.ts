/**
 * Label and field selectors, parsed the way the API server reads the
 * `labelSelector` and `fieldSelector` query parameters.
 *
 * @module
 */
import {
  labelMatcher,
  type Matcher,
  splitTop,
} from "../../_internal/selectors.ts";
import { badRequest } from "./status.ts";
import { own } from "../../_internal/own.ts";

export type { Matcher };

/**
 * Parses a label selector (`a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a`, `!a`); throws a 400 for a malformed one.
 */
export function labelSelector(text: string | null): Matcher | undefined {
  return labelMatcher(text, badRequest);
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
 * refuses it (400, `field label not supported: spec.x`, or `refusal`'s
 * words); without it any other dotted path is read from the object too.
 */
export function fieldSelector(
  text: string | null,
  selectable?: readonly string[],
  refusal: (field: string) => string = (field) =>
    `field label not supported: ${field}`,
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
      throw badRequest(refusal(refused.field));
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
