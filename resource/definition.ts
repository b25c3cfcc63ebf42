/**
 * `defineResource`: one definition of a custom resource, and what follows
 * from it.
 *
 * @module
 */

import type {
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  PrinterColumn,
} from "./crd.ts";
import { type Cause, SchemaError, StructuralSchemaError } from "./errors.ts";
import type { ObjectOf, ObjectSchema } from "./schema.ts";
import { typeInvalid, typeName } from "./_messages.ts";
import { decodeWith } from "./_decode.ts";
import { defaultRules, ROOT, structural } from "./_structural.ts";
import { isObject } from "./_validate.ts";

/**
 * What {@linkcode defineResource} takes.
 *
 * @typeParam S The schema of the whole object.
 */
export interface ResourceOptions<S extends ObjectSchema> {
  /** The API group, a DNS name with a dot, such as `demo.liken.dev`. */
  group: string;
  /** The version, such as `v1alpha1`: served, and the storage version. */
  version: string;
  /** The kind, such as `Greeting`. */
  kind: string;
  /** The plural resource name, lower case, such as `greetings`. */
  plural: string;
  /** The singular name. Default: the kind in lower case. */
  singular?: string | undefined;
  /** `Namespaced` (as ConfigMaps) or `Cluster` (as Nodes). */
  scope: "Namespaced" | "Cluster";
  /** Short names for `kubectl`. Default none. */
  shortNames?: readonly string[] | undefined;
  /** Categories for `kubectl get <category>`. Default none. */
  categories?: readonly string[] | undefined;
  /** The columns of `kubectl get`. Default none (name and age). */
  printerColumns?: readonly PrinterColumn[] | undefined;
  /**
   * Whether `status` is a subresource (written through `/status` only, and
   * ignored on the main path). Default `false`.
   */
  status?: boolean | undefined;
  /**
   * The structural OpenAPI v3 schema of the whole object (`type: object`
   * with `spec`, `status` and any other fields under `properties`), as the
   * CRD's `openAPIV3Schema` holds it. `apiVersion`, `kind` and `metadata`
   * need not be named.
   */
  schema: S;
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * One custom resource, defined once: it is the `Resource` (and
 * controller `Primary`) of its collection across namespaces, writes its
 * CustomResourceDefinition (`crd()`) and validates, prunes and defaults
 * objects as the API server does (`decode`). Its object type is
 * `ObjectOf<typeof definition>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { objectPath } from "@liken/kubernetes/apiclient";
 * import { defineResource } from "@liken/kubernetes/resource";
 *
 * const GADGETS = defineResource({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Gadget",
 *   plural: "gadgets",
 *   scope: "Namespaced",
 *   schema: { type: "object", properties: { spec: { type: "object" } } },
 * });
 * assert.equal(
 *   objectPath({ ...GADGETS, namespace: "demo", name: "g" }),
 *   "/apis/example.com/v1/namespaces/demo/gadgets/g",
 * );
 * assert.equal(GADGETS.apiVersion, "example.com/v1");
 * ```
 *
 * @typeParam S The schema of the whole object.
 */
export class ResourceDefinition<const S extends ObjectSchema> {
  /** The API group. */
  readonly group: string;
  /** The version. */
  readonly version: string;
  /** The plural resource name. */
  readonly resource: string;
  /** Whether the kind lives in namespaces. */
  readonly namespaced: boolean;
  /** The kind. */
  readonly kind: string;
  /** `group/version`, the objects' `apiVersion`. */
  readonly apiVersion: string;
  /** The schema of the whole object. */
  readonly schema: S;
  /**
   * Validates an object against the schema, as the API server does for a
   * write: returns a copy with unknown fields pruned (`apiVersion`, `kind`
   * and `metadata` kept, `metadata` cut to ObjectMeta's fields), `null`s of
   * fields that are not `nullable` dropped, and defaults set (a nested
   * default only where its parent is present); throws a
   * {@linkcode SchemaError} naming each field that does not validate.
   * Bound: pass it as an informer's `decode`. It costs a deep copy and one
   * walk of the object per call.
   *
   * @param value The object, as parsed from JSON.
   * @param options `onUnknownField` hears the path of each field pruned
   *   (the API server's `unknown field "spec.extra"` warning).
   * @returns The pruned, defaulted copy.
   * @throws {SchemaError} When the object does not validate.
   */
  readonly decode: (
    value: unknown,
    options?: DecodeOptions | undefined,
  ) => ObjectOf<ResourceDefinition<S>>;
  #options: ResourceOptions<S>;

  /**
   * Checks the definition; {@linkcode defineResource} is the usual way in.
   *
   * @param options The definition.
   * @throws {StructuralSchemaError} When the API server would refuse the
   *   schema.
   * @throws {TypeError} When a name is not one the API server takes.
   */
  constructor(options: ResourceOptions<S>) {
    const { group, version, kind, plural } = options;
    if (!group.includes(".")) {
      throw new TypeError(`The group ${JSON.stringify(group)} needs a dot`);
    }
    for (const name of [plural, version, options.singular ?? "x"]) {
      if (!NAME.test(name)) {
        throw new TypeError(
          `The name ${JSON.stringify(name)} is not a lower-case DNS label`,
        );
      }
    }
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(kind)) {
      throw new TypeError(`The kind ${JSON.stringify(kind)} is not a name`);
    }
    this.#options = options;
    this.group = group;
    this.version = version;
    this.resource = plural;
    this.namespaced = options.scope === "Namespaced";
    this.kind = kind;
    this.apiVersion = `${group}/${version}`;
    this.schema = options.schema;
    const causes: Cause[] = [];
    structural(options.schema, ROOT, "root", causes);
    if (causes.length === 0) defaultRules(options.schema, ROOT, causes);
    if (causes.length > 0) {
      throw new StructuralSchemaError(this.#crdName(), causes);
    }
    this.decode = (value, decodeOptions) =>
      this.#decode(value, decodeOptions) as ObjectOf<ResourceDefinition<S>>;
  }

  /**
   * The CustomResourceDefinition (`apiextensions.k8s.io/v1`) of the kind:
   * the one version served and stored, the status subresource when
   * `status` is set, the printer columns, short names and categories, and
   * the schema as given. A fresh copy on every call.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { defineResource } from "@liken/kubernetes/resource";
   *
   * const GADGETS = defineResource({
   *   group: "example.com",
   *   version: "v1",
   *   kind: "Gadget",
   *   plural: "gadgets",
   *   scope: "Cluster",
   *   status: true,
   *   schema: { type: "object", properties: { spec: { type: "object" } } },
   * });
   * const crd = GADGETS.crd();
   * assert.equal(crd.metadata.name, "gadgets.example.com");
   * assert.deepEqual(crd.spec.versions[0]?.subresources, { status: {} });
   * ```
   *
   * @returns The CustomResourceDefinition.
   */
  crd(): CustomResourceDefinition {
    const options = this.#options;
    const names: CustomResourceDefinition["spec"]["names"] = {
      plural: this.resource,
      singular: options.singular ?? this.kind.toLowerCase(),
      kind: this.kind,
      listKind: `${this.kind}List`,
    };
    if (options.shortNames?.length) names.shortNames = [...options.shortNames];
    if (options.categories?.length) names.categories = [...options.categories];
    const version: CustomResourceDefinitionVersion = {
      name: this.version,
      served: true,
      storage: true,
    } as CustomResourceDefinitionVersion;
    if (options.status) version.subresources = { status: {} };
    if (options.printerColumns?.length) {
      version.additionalPrinterColumns = options.printerColumns.map((c) =>
        Object.fromEntries(
          Object.entries(c).filter(([, v]) => v !== undefined),
        ) as PrinterColumn
      );
    }
    version.schema = { openAPIV3Schema: structuredClone(this.schema) };
    return {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: this.#crdName() },
      spec: {
        group: this.group,
        names,
        scope: options.scope,
        versions: [version],
      },
    };
  }

  #crdName(): string {
    return `${this.resource}.${this.group}`;
  }

  #decode(value: unknown, options: DecodeOptions | undefined): unknown {
    if (!isObject(value)) {
      const cause = typeInvalid("", typeName(value), "object");
      throw new SchemaError(this.kind, this.group, undefined, [{
        ...cause,
        message: `Invalid value: ${
          JSON.stringify(typeName(value))
        }: must be of type object`,
      }]);
    }
    const { object, unknown, causes } = decodeWith(this.schema, value);
    if (options?.onUnknownField) unknown.forEach(options.onUnknownField);
    if (causes.length > 0) {
      const metadata = object.metadata;
      const name = isObject(metadata) && typeof metadata.name === "string"
        ? metadata.name
        : undefined;
      throw new SchemaError(this.kind, this.group, name, causes);
    }
    return object;
  }
}

/** What {@linkcode ResourceDefinition.decode} takes beside the object. */
export interface DecodeOptions {
  /** Hears the path of each field pruned, such as `spec.extra`. Default none. */
  onUnknownField?: ((path: string) => void) | undefined;
}

/**
 * Defines a custom resource once, from its structural schema: the object
 * type (`ObjectOf<typeof definition>`, inferred from the schema), the
 * `Resource` of its collection (the definition itself), the
 * CustomResourceDefinition (`crd()`) and a validating, pruning, defaulting
 * `decode`. Write the schema `as const` (or inline: the type parameter is
 * `const`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineResource, type ObjectOf } from "@liken/kubernetes/resource";
 *
 * const GADGETS = defineResource({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Gadget",
 *   plural: "gadgets",
 *   scope: "Namespaced",
 *   status: true,
 *   schema: {
 *     type: "object",
 *     required: ["spec"],
 *     properties: {
 *       spec: {
 *         type: "object",
 *         required: ["size"],
 *         properties: {
 *           size: { type: "integer", minimum: 1 },
 *           color: { type: "string", default: "blue" },
 *         },
 *       },
 *       status: { type: "object", properties: { ready: { type: "boolean" } } },
 *     },
 *   },
 * });
 * type Gadget = ObjectOf<typeof GADGETS>;
 *
 * const gadget: Gadget = GADGETS.decode({
 *   apiVersion: "example.com/v1",
 *   kind: "Gadget",
 *   metadata: { name: "g" },
 *   spec: { size: 2, extra: true },
 * });
 * assert.deepEqual(gadget.spec, { size: 2, color: "blue" });
 * ```
 *
 * @typeParam S The schema of the whole object.
 * @param options The definition.
 * @returns The definition.
 * @throws {StructuralSchemaError} When the API server would refuse the
 *   schema.
 */
export function defineResource<const S extends ObjectSchema>(
  options: ResourceOptions<S>,
): ResourceDefinition<S> {
  return new ResourceDefinition(options);
}
