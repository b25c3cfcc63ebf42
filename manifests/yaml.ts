// Manifests as YAML: one document per object.
import { dump } from "js-yaml";

/** Options of {@linkcode yaml}. */
export interface YamlOptions {
  /**
   * Comment lines before the first document, such as who generated the
   * file; each line gets a `# `. Default: none.
   */
  header?: string | undefined;
}

/**
 * Writes objects as a multi-document YAML stream (`---` between them), keys
 * in the objects' order, no anchors, long strings unfolded: what `kubectl
 * apply -f` reads and a reviewer can diff.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { yaml } from "@liken/kubernetes/manifests";
 *
 * const text = yaml([
 *   { apiVersion: "v1", kind: "Namespace", metadata: { name: "ops" } },
 *   { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "op", namespace: "ops" } },
 * ], { header: "Generated: do not edit." });
 * assert.equal(text.split("\n")[0], "# Generated: do not edit.");
 * assert.equal(text.match(/^---$/gm)?.length, 1);
 * ```
 *
 * @param objects The objects.
 * @param options The header.
 * @returns The YAML text, ending with a newline.
 */
export function yaml(
  objects: readonly unknown[],
  options: YamlOptions = {},
): string {
  const header = options.header === undefined
    ? ""
    : options.header.split("\n").map((line) => `# ${line}`.trimEnd()).join(
      "\n",
    ) + "\n";
  const documents = objects.map((object) =>
    dump(object, { lineWidth: -1, noRefs: true })
  );
  return header + documents.join("---\n");
}
