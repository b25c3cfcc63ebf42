/**
 * Content negotiation for Tables: which `Accept` clause asks for
 * `application/json;as=Table;v=v1;g=meta.k8s.io`, as `kubectl get` sends it.
 *
 * @module
 */

/** The meta.k8s.io versions the server converts to. */
const TABLE_VERSIONS = ["v1", "v1beta1"];

/**
 * The Table apiVersion an `Accept` header asks for, or `undefined` when the
 * first clause the fake can answer is plain JSON (or nothing matches: the
 * fake then answers JSON as it always did). Clauses are tried by `q`, then
 * in order, as the API server's negotiation does.
 */
export function negotiateTable(accept: string | null): string | undefined {
  return negotiateAs(accept, ["Table"])?.apiVersion;
}

/** A conversion a request asks for: what `as` names, and its apiVersion. */
export interface Conversion {
  /** `Table`, `PartialObjectMetadata` or `PartialObjectMetadataList`. */
  as: string;
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  apiVersion: string;
}

/**
 * The conversion an `Accept` header asks for among `allowed` (an endpoint
 * offers Tables and, for one object or a watch, `PartialObjectMetadata`, or
 * for a list `PartialObjectMetadataList`), or `undefined` when the first
 * clause the fake can answer is plain JSON, or none is.
 */
export function negotiateAs(
  accept: string | null,
  allowed: readonly string[],
): Conversion | undefined {
  if (!accept) return undefined;
  const clauses = accept.split(",").map((clause, index) => {
    const [type = "", ...rest] = clause.split(";").map((p) => p.trim());
    const params = new Map<string, string>();
    for (const param of rest) {
      const eq = param.indexOf("=");
      if (eq < 0) continue;
      params.set(
        param.slice(0, eq).trim().toLowerCase(),
        param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1"),
      );
    }
    const q = Number(params.get("q") ?? "1");
    return {
      type: type.toLowerCase(),
      params,
      q: Number.isNaN(q) ? 0 : q,
      index,
    };
  }).sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { type, params, q } of clauses) {
    if (q <= 0) continue;
    const json = type === "application/json" || type === "application/*" ||
      type === "*/*";
    if (!json) continue;
    const as = params.get("as");
    if (as === undefined) return undefined;
    const version = params.get("v") ?? "";
    if (
      allowed.includes(as) && params.get("g") === "meta.k8s.io" &&
      TABLE_VERSIONS.includes(version)
    ) {
      return { as, apiVersion: `meta.k8s.io/${version}` };
    }
    // A conversion this endpoint does not offer: try the next clause.
  }
  return undefined;
}
