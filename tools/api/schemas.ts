// Writes api/<group>/<version>/schemas.ts: each built-in object type's schema
// as a CRD can embed it (issue 43, part 4), shaped as controller-gen emits an
// embedded Go type: structural, with the `x-kubernetes-*` list and map
// markers, required fields, real defaults (a port's `protocol: TCP`), no
// descriptions (to keep CRDs small), an embedded ObjectMeta cut to name,
// namespace, labels, annotations and finalizers (controller-gen's
// `generateEmbeddedObjectMeta`), IntOrString and Quantity as
// `x-kubernetes-int-or-string`, RawExtension as preserved unknown fields.
// A schema refers to the schemas it uses by name, so each is written once.
//
// What the API server then checks of an embedded template is that schema
// only: types, required fields, list keys; never the Pod validation (a
// container image, a port range) that a Pod write gets.

import { refName, type Schema, shortName } from "./_openapi.ts";

/** Quantity's pattern, as controller-gen emits it. */
const QUANTITY_PATTERN =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

/** Inline schemas of the scalar-like types, by schema name. */
const INLINE: Readonly<Record<string, string>> = {
  "io.k8s.apimachinery.pkg.api.resource.Quantity":
    `{ "x-kubernetes-int-or-string": true, pattern: ${
      JSON.stringify(QUANTITY_PATTERN)
    } }`,
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
    `{ "x-kubernetes-int-or-string": true }`,
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time":
    `{ type: "string", format: "date-time" }`,
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime":
    `{ type: "string", format: "date-time" }`,
  "io.k8s.apimachinery.pkg.runtime.RawExtension":
    `{ type: "object", "x-kubernetes-preserve-unknown-fields": true }`,
  "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1":
    `{ type: "object", "x-kubernetes-preserve-unknown-fields": true }`,
  "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": `{
    type: "object",
    properties: {
      annotations: { type: "object", additionalProperties: { type: "string" } },
      finalizers: { type: "array", items: { type: "string" } },
      labels: { type: "object", additionalProperties: { type: "string" } },
      name: { type: "string" },
      namespace: { type: "string" },
    },
  }`,
};

/** What the emitter needs of the generator. */
export interface Definitions {
  /** Every schema by name. */
  schemas: ReadonlyMap<string, { schema: Schema; module: string }>;
  /** The module's alias for imports: `core/v1` → `coreV1`. */
  aliasOf(module: string): string;
}

/** `JobTemplateSpec` → `JOB_TEMPLATE_SPEC`, `HTTPGetAction` → `HTTP_GET_ACTION`. */
export function constantName(type: string): string {
  return type.replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1_$2").toUpperCase();
}

function refsOf(schema: Schema, out: Set<string>): Set<string> {
  const ref = refName(schema);
  if (ref !== undefined) out.add(ref);
  for (const child of Object.values(schema.properties ?? {})) {
    refsOf(child, out);
  }
  if (schema.items) refsOf(schema.items, out);
  if (typeof schema.additionalProperties === "object") {
    refsOf(schema.additionalProperties, out);
  }
  return out;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The schemas that may be embedded: objects, not lists, not self-referring. */
export function embeddable(definitions: Definitions): Set<string> {
  const { schemas } = definitions;
  const out = new Set<string>();
  const state = new Map<string, "visiting" | "ok" | "cyclic">();
  const visit = (name: string): boolean => {
    if (name in INLINE) return true;
    const seen = state.get(name);
    if (seen === "visiting" || seen === "cyclic") return false;
    if (seen === "ok") return true;
    const definition = schemas.get(name);
    if (definition === undefined) return false;
    state.set(name, "visiting");
    let ok = true;
    for (const ref of refsOf(definition.schema, new Set())) {
      if (!visit(ref)) ok = false;
    }
    state.set(name, ok ? "ok" : "cyclic");
    return ok;
  };
  for (const [name, { schema }] of schemas) {
    if (name in INLINE || !schema.properties) continue;
    const gvk = schema["x-kubernetes-group-version-kind"];
    if (gvk?.some((g) => g.kind.endsWith("List")) && schema.properties.items) {
      continue;
    }
    if (visit(name)) out.add(name);
  }
  return out;
}

class Emitter {
  /** `Item.key` of every list-map key of a list of `Item`s. */
  readonly keys = new Set<string>();

  constructor(
    readonly definitions: Definitions,
    readonly module: string,
    readonly imports: Set<string>,
  ) {
    const visit = (schema: Schema): void => {
      const item = schema.items && refName(schema.items);
      for (const key of schema["x-kubernetes-list-map-keys"] ?? []) {
        if (item) this.keys.add(`${item}.${key}`);
      }
      for (const child of Object.values(schema.properties ?? {})) visit(child);
      if (schema.items) visit(schema.items);
    };
    for (const { schema } of definitions.schemas.values()) visit(schema);
  }

  ref(name: string): string {
    const inline = INLINE[name];
    if (inline !== undefined) return inline;
    const definition = this.definitions.schemas.get(name)!;
    // A type without properties (an empty struct) is written in place.
    if (!definition.schema.properties) return this.node(definition.schema, "");
    const constant = constantName(shortName(name));
    if (definition.module === this.module) return constant;
    this.imports.add(definition.module);
    return `${this.definitions.aliasOf(definition.module)}.${constant}`;
  }

  /** Whether each key of a list's items is required or has a default. */
  keyed(items: Schema, keys: readonly string[]): boolean {
    const name = refName(items);
    const item = name === undefined
      ? items
      : this.definitions.schemas.get(name)?.schema ?? {};
    return keys.every((key) =>
      (item.required ?? []).includes(key) ||
      (item.properties?.[key]?.default !== undefined && name !== undefined &&
        this.keys.has(`${name}.${key}`))
    );
  }

  /** The structural schema of a node, as a TypeScript expression. */
  /**
   * `owner`: the definition's name, for its own properties; `keyZero`: keep
   * a zero default, as the node is a list-map key that is not required
   * (the API server takes such a key only with a default, and controller-gen
   * writes the `+default=""` marker of LocalObjectReference.name so).
   */
  node(
    schema: Schema,
    indent: string,
    owner?: string,
    keyZero = false,
  ): string {
    const ref = refName(schema);
    if (ref !== undefined) return this.ref(ref);
    const fields: string[] = [];
    if (
      schema["x-kubernetes-int-or-string"] || schema.format === "int-or-string"
    ) {
      return `{ "x-kubernetes-int-or-string": true }`;
    }
    if (schema.type) fields.push(`type: ${JSON.stringify(schema.type)}`);
    if (
      schema.format &&
      ["date-time", "byte", "int32", "int64", "double"].includes(schema.format)
    ) {
      fields.push(`format: ${JSON.stringify(schema.format)}`);
    }
    // A zero default ("" or 0, {}) is Go's empty value, not a default.
    const zero = schema.default === "" || schema.default === 0 ||
      schema.default === false ||
      (typeof schema.default === "object" && schema.default !== null &&
        Object.keys(schema.default).length === 0);
    const real = schema.default !== undefined &&
      (!zero || (keyZero && typeof schema.default !== "object"));
    if (real) fields.push(`default: ${JSON.stringify(schema.default)}`);
    if (schema.required?.length) {
      fields.push(`required: ${JSON.stringify(schema.required)}`);
    }
    const inner = indent + "  ";
    if (schema.properties) {
      const props = Object.keys(schema.properties).sort().map((name) =>
        `${inner}  ${IDENTIFIER.test(name) ? name : JSON.stringify(name)}: ${
          this.node(
            schema.properties![name]!,
            inner + "  ",
            undefined,
            owner !== undefined && this.keys.has(`${owner}.${name}`) &&
              !(schema.required ?? []).includes(name),
          )
        },\n`
      ).join("");
      fields.push(`properties: {\n${props}${inner}}`);
    }
    if (schema.items) fields.push(`items: ${this.node(schema.items, inner)}`);
    if (typeof schema.additionalProperties === "object") {
      fields.push(
        `additionalProperties: ${
          this.node(schema.additionalProperties, inner)
        }`,
      );
    }
    if (schema["x-kubernetes-preserve-unknown-fields"]) {
      fields.push(`"x-kubernetes-preserve-unknown-fields": true`);
    }
    // List markers only on arrays ([]byte is a string with one), and a map
    // list only where the API server takes it: each key required or
    // defaulted. A key that is neither (an optional `shareID`, a
    // ServiceAccount's secret `name`) leaves the list atomic.
    let listType = schema.type === "array"
      ? schema["x-kubernetes-list-type"]
      : undefined;
    const keys = schema["x-kubernetes-list-map-keys"];
    if (listType === "map" && !this.keyed(schema.items ?? {}, keys ?? [])) {
      listType = "atomic";
    }
    if (listType) {
      fields.push(`"x-kubernetes-list-type": ${JSON.stringify(listType)}`);
    }
    if (listType === "map" && keys) {
      fields.push(`"x-kubernetes-list-map-keys": ${JSON.stringify(keys)}`);
    }
    const mapType = schema["x-kubernetes-map-type"];
    if (mapType) {
      fields.push(`"x-kubernetes-map-type": ${JSON.stringify(mapType)}`);
    }
    if (schema.type === undefined && fields.length === 0) {
      return `{ "x-kubernetes-preserve-unknown-fields": true }`;
    }
    if (fields.every((f) => !f.includes("\n"))) {
      const line = `{ ${fields.join(", ")} }`;
      if (line.length <= 72) return line;
    }
    return `{\n${fields.map((f) => `${inner}${f},\n`).join("")}${indent}}`;
  }
}

/** The schemas.ts of a module, or undefined when it has none to embed. */
export function schemasModule(
  definitions: Definitions,
  module: string,
  release: string,
): string | undefined {
  const all = embeddable(definitions);
  const names = [...all].filter((n) =>
    definitions.schemas.get(n)!.module === module
  )
    .sort((a, b) =>
      shortName(a).localeCompare(shortName(b)) || a.localeCompare(b)
    );
  if (names.length === 0) return undefined;
  const constants = new Set<string>();
  for (const name of names) {
    const constant = constantName(shortName(name));
    if (constants.has(constant)) {
      throw new Error(`Two schemas are named ${constant}`);
    }
    constants.add(constant);
  }
  // Local schemas in dependency order: a constant is defined before use.
  const ordered: string[] = [];
  const placed = new Set<string>();
  const place = (name: string): void => {
    if (placed.has(name)) return;
    placed.add(name);
    for (
      const ref of [...refsOf(definitions.schemas.get(name)!.schema, new Set())]
        .sort()
    ) {
      if (names.includes(ref)) place(ref);
    }
    ordered.push(name);
  };
  for (const name of names) place(name);
  const imports = new Set<string>();
  const emitter = new Emitter(definitions, module, imports);
  let body = "";
  for (const name of ordered) {
    const type = shortName(name);
    const text =
      `The schema of {@linkcode types.${type}} as a CRD embeds it (controller-gen's shape, without descriptions).`;
    body += `/** ${text} */\nexport const ${
      constantName(type)
    }: BuiltinSchema<types.${type}> = ${
      emitter.node(definitions.schemas.get(name)!.schema, "", name)
    };\n\n`;
  }
  const lines = [
    `import type { BuiltinSchema } from "../../types.ts";`,
    `import type * as types from "./mod.ts";`,
    ...[...imports].sort().map((m) =>
      `import * as ${definitions.aliasOf(m)} from "../../${m}/schemas.ts";`
    ),
  ];
  const head = `/**
 * The schemas of the built-in types of \`${module}\` (Kubernetes ${release}) as a
 * CustomResourceDefinition embeds them, for \`defineResource\`: structural,
 * with the \`x-kubernetes-*\` list and map markers, required fields and real
 * defaults, no descriptions, and an embedded \`metadata\` cut to name,
 * namespace, labels, annotations and finalizers, as controller-gen writes
 * them. The API server validates an embedded template against the schema
 * only, never as it validates the object itself (a Pod's own checks).
 *
 * @module
 */
`;
  return `// Generated by tools/api/generate.ts from tools/api/data: do not edit.\n// deno-fmt-ignore-file\n${head}\n${
    lines.join("\n")
  }\n\n${body.trimEnd()}\n`;
}
