/**
 * `defineResource`: one definition of a custom resource, and what follows
 * from it.
 *
 * @module
 */

import type {
  CrdOptions,
  CustomResourceDefinition,
  PrinterColumn,
  ScaleSubresource,
} from "./crd.ts";
import { type Cause, SchemaError, StructuralSchemaError } from "./errors.ts";
import type { ObjectOf, ObjectSchema } from "./schema.ts";
import { typeInvalid, typeName } from "../_internal/schema/messages.ts";
import { decodeWith } from "../_internal/schema/decode.ts";
import { defaultRules, structural } from "../_internal/schema/structural.ts";
import { ruleFieldCauses } from "../_internal/schema/rule_fields.ts";
import {
  crdVersion,
  normalise,
  type Version,
  versionErrors,
} from "./_versions.ts";
import { isObject } from "../_internal/schema/validate.ts";

/** What both forms of {@linkcode defineResource}'s options share. */
export interface CommonResourceOptions {
  /** The API group, a DNS name with a dot, such as `demo.liken.dev`. */
  group: string;
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
  /**
   * The columns of `kubectl get`. Default none (name and age). Of every
   * version that sets none of its own.
   */
  printerColumns?: readonly PrinterColumn[] | undefined;
  /**
   * Whether `status` is a subresource (written through `/status` only, and
   * ignored on the main path). Default `false`. Of every version that sets
   * none of its own.
   */
  status?: boolean | undefined;
  /**
   * The `scale` subresource: `/scale` reads and writes an autoscaling/v1
   * `Scale` from the replicas at these paths (as `kubectl scale` and the
   * HorizontalPodAutoscaler do). Default none. Of every version that sets
   * none of its own.
   */
  scale?: ScaleSubresource | undefined;
  /**
   * JSONPaths of fields a field selector may name, such as `.spec.color`
   * (beside `metadata.name` and `metadata.namespace`; at most 8; the field
   * a string, integer or boolean). Default none. Of every version that
   * sets none of its own.
   */
  selectableFields?: readonly string[] | undefined;
}

/**
 * What {@linkcode defineResource} takes: one version, served and stored.
 *
 * @typeParam S The schema of the whole object.
 */
export interface ResourceOptions<S extends ObjectSchema>
  extends CommonResourceOptions {
  /** The version, such as `v1alpha1`: served, and the storage version. */
  version: string;
  /**
   * The structural OpenAPI v3 schema of the whole object (`type: object`
   * with `spec`, `status` and any other fields under `properties`), as the
   * CRD's `openAPIV3Schema` holds it. `apiVersion`, `kind` and `metadata`
   * need not be named.
   */
  schema: S;
  /** Not beside `version` and `schema`. */
  versions?: undefined;
}

/**
 * One version of a definition of several (`versions` of
 * {@linkcode VersionedResourceOptions}).
 *
 * @typeParam S The schema of the whole object in this version.
 */
export interface VersionOptions<S extends ObjectSchema = ObjectSchema> {
  /** The version, such as `v1beta1`. */
  name: string;
  /** The structural schema of the whole object in this version. */
  schema: S;
  /** Whether the API server serves it. Default `true`. */
  served?: boolean | undefined;
  /** Whether objects are stored in it: exactly one version is. Default `false`. */
  storage?: boolean | undefined;
  /** Whether a request for it earns a `Warning` header (299). Default `false`. */
  deprecated?: boolean | undefined;
  /**
   * The warning's text. Default the API server's: `<group>/<version>
   * <Kind> is deprecated; use <group>/<newer> <Kind>`.
   */
  deprecationWarning?: string | undefined;
  /** Its columns of `kubectl get`. Default the definition's. */
  printerColumns?: readonly PrinterColumn[] | undefined;
  /** Whether `status` is a subresource. Default the definition's. */
  status?: boolean | undefined;
  /** Its `scale` subresource. Default the definition's. */
  scale?: ScaleSubresource | undefined;
  /** Its selectable fields. Default the definition's. */
  selectableFields?: readonly string[] | undefined;
}

/**
 * What {@linkcode defineResource} takes for a kind of several versions.
 * The objects of every version are the same but for `apiVersion`
 * (conversion `None`); each version has its own schema.
 *
 * @typeParam V The versions, as written (`const`).
 * @typeParam N The version the definition is the `Resource` of.
 */
export interface VersionedResourceOptions<
  V extends readonly VersionOptions[],
  N extends string,
> extends CommonResourceOptions {
  /** The versions, in the order the CRD lists them. */
  versions: V;
  /**
   * The version the definition is the `Resource` of (its `version`,
   * `schema` and `decode`). Default the storage version.
   */
  version?: N | undefined;
  /** Not beside `versions`: each version has its own. */
  schema?: undefined;
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
 * @typeParam S The schema of the whole object (in `version`).
 * @typeParam M The schema of each version, by name.
 */
export class ResourceDefinition<
  const S extends ObjectSchema,
  const M extends { readonly [version: string]: ObjectSchema } = {
    readonly [version: string]: S;
  },
> {
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
  /** The schema of each version, by name (one for the single-version form). */
  readonly schemas: M;
  /**
   * Type only, never set: the object type, so `client.resource(definition)`
   * answers a handle of `ObjectOf<typeof definition>` (as the built-in
   * `Resource`s of `@liken/kubernetes/api` do).
   */
  declare readonly "~object"?: ObjectOf<ResourceDefinition<S>> | undefined;
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
  #options: CommonResourceOptions;
  #versions: Version[];

  /**
   * Checks the definition; {@linkcode defineResource} is the usual way in.
   *
   * @param options The definition, of one version or several.
   * @throws {StructuralSchemaError} When the API server would refuse a
   *   version's schema.
   * @throws {TypeError} When a name is not one the API server takes, or
   *   the versions are not (exactly one storage version, scale paths under
   *   `.spec` and `.status`, and so on).
   */
  constructor(
    options:
      | ResourceOptions<S>
      | VersionedResourceOptions<readonly VersionOptions[], string>,
  ) {
    const { group, kind, plural } = options;
    const versions = normalise(options);
    const chosen = options.version ??
      versions.find((v) => v.storage)?.name ?? versions[0]?.name ?? "";
    if (!group.includes(".")) {
      throw new TypeError(`The group ${JSON.stringify(group)} needs a dot`);
    }
    const labels = [
      plural,
      options.singular ?? "x",
      ...versions.map((v) => v.name),
    ];
    for (const name of labels) {
      if (!NAME.test(name)) {
        throw new TypeError(
          `The name ${JSON.stringify(name)} is not a lower-case DNS label`,
        );
      }
    }
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(kind)) {
      throw new TypeError(`The kind ${JSON.stringify(kind)} is not a name`);
    }
    const wrong = versionErrors(versions);
    if (wrong.length > 0) throw new TypeError(wrong.join("; "));
    const version = versions.find((v) => v.name === chosen);
    if (version === undefined) {
      throw new TypeError(
        `The version ${JSON.stringify(chosen)} is not one of the versions`,
      );
    }
    this.#options = options;
    this.#versions = versions;
    this.group = group;
    this.version = chosen;
    this.resource = plural;
    this.namespaced = options.scope === "Namespaced";
    this.kind = kind;
    this.apiVersion = `${group}/${chosen}`;
    this.schema = version.schema as S;
    this.schemas = Object.fromEntries(
      versions.map((v) => [v.name, v.schema]),
    ) as unknown as M;
    const causes: Cause[] = [];
    versions.forEach((v, i) => {
      const path = `spec.versions[${i}].schema.openAPIV3Schema`;
      const found: Cause[] = [];
      structural(v.schema, path, "root", found);
      if (found.length === 0) defaultRules(v.schema, path, found);
      // The rules' own fields; their expressions compile where asked
      // (validationRules, the fake, the API server).
      if (found.length === 0) found.push(...ruleFieldCauses(v.schema, path));
      causes.push(...found);
    });
    if (causes.length > 0) {
      throw new StructuralSchemaError(this.#crdName(), causes);
    }
    this.decode = (value, decodeOptions) =>
      this.#decode(value, decodeOptions) as ObjectOf<ResourceDefinition<S>>;
  }

  /**
   * The definition as the `Resource` of another of its versions: its
   * `version`, `apiVersion`, `schema` and `decode` are that version's; its
   * `crd()` is the same.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { defineResource, type ObjectOf } from "@liken/kubernetes/resource";
   *
   * const GADGETS = defineResource({
   *   group: "example.com",
   *   kind: "Gadget",
   *   plural: "gadgets",
   *   scope: "Namespaced",
   *   versions: [
   *     {
   *       name: "v1",
   *       storage: true,
   *       schema: {
   *         type: "object",
   *         properties: {
   *           spec: { type: "object", properties: { size: { type: "integer" } } },
   *         },
   *       },
   *     },
   *     {
   *       name: "v1beta1",
   *       deprecated: true,
   *       schema: {
   *         type: "object",
   *         properties: {
   *           spec: { type: "object", properties: { count: { type: "integer" } } },
   *         },
   *       },
   *     },
   *   ],
   * });
   * const OLD = GADGETS.forVersion("v1beta1");
   * assert.equal(OLD.apiVersion, "example.com/v1beta1");
   * const old: ObjectOf<typeof OLD> = OLD.decode({
   *   metadata: { name: "g" },
   *   spec: { count: 2, size: 1 },
   * });
   * assert.deepEqual(old.spec, { count: 2 });
   * ```
   *
   * @typeParam N The version's name.
   * @param name The version, one of the definition's.
   * @returns The definition of that version.
   * @throws {TypeError} When the definition has no such version.
   */
  forVersion<const N extends keyof M & string>(
    name: N,
  ): ResourceDefinition<M[N], M> {
    return new ResourceDefinition<M[N], M>(
      {
        ...this.#options,
        version: name,
        schema: undefined,
        versions: this.#versions,
      } as VersionedResourceOptions<readonly VersionOptions[], string>,
    );
  }

  /**
   * The CustomResourceDefinition (`apiextensions.k8s.io/v1`) of the kind:
   * every version (served and stored as given, deprecated with its
   * warning), each version's subresources (`status`, `scale`), printer
   * columns, selectable fields and schema as given; the short names and
   * categories; conversion `None` when there are several versions, or
   * the `conversion` given (such as a webhook's). A fresh copy on every
   * call.
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
   * @param crdOptions The conversion, when not the default.
   * @returns The CustomResourceDefinition.
   */
  crd(crdOptions: CrdOptions = {}): CustomResourceDefinition {
    const options = this.#options;
    const names: CustomResourceDefinition["spec"]["names"] = {
      plural: this.resource,
      singular: options.singular ?? this.kind.toLowerCase(),
      kind: this.kind,
      listKind: `${this.kind}List`,
    };
    if (options.shortNames?.length) names.shortNames = [...options.shortNames];
    if (options.categories?.length) names.categories = [...options.categories];
    const spec: CustomResourceDefinition["spec"] = {
      group: this.group,
      names,
      scope: options.scope,
      versions: this.#versions.map(crdVersion),
    };
    const conversion = crdOptions.conversion === undefined
      ? this.#conversion()
      : structuredClone(crdOptions.conversion);
    if (conversion !== undefined) spec.conversion = conversion;
    return {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: this.#crdName() },
      spec,
    };
  }

  // How objects pass between versions by default: None (only apiVersion
  // changes), written when there are several.
  #conversion(): CustomResourceDefinition["spec"]["conversion"] {
    return this.#versions.length > 1 ? { strategy: "None" } : undefined;
  }

  #crdName(): string {
    return `${this.resource}.${this.group}`;
  }

  /**
   * Compiles the schema's validation rules (`x-kubernetes-validations`)
   * for {@linkcode ResourceDefinition.decode} to evaluate where asked
   * (`decode(value, { rules })`), as the API server does on a write. The
   * first call loads the CEL engine (a dynamic import, which `deno
   * compile` includes): an operator that never asks never loads it.
   * `decode` never evaluates rules by default: an informer decodes stored
   * objects, which may predate a rule.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { defineResource, SchemaError } from "@liken/kubernetes/resource";
   *
   * const RANGES = defineResource({
   *   group: "example.com",
   *   version: "v1",
   *   kind: "Range",
   *   plural: "ranges",
   *   scope: "Namespaced",
   *   schema: {
   *     type: "object",
   *     properties: {
   *       spec: {
   *         type: "object",
   *         properties: { min: { type: "integer" }, max: { type: "integer" } },
   *         "x-kubernetes-validations": [{
   *           rule: "self.min <= self.max",
   *           message: "min above max",
   *         }],
   *       },
   *     },
   *   },
   * });
   * const range = {
   *   apiVersion: "example.com/v1",
   *   kind: "Range",
   *   metadata: { name: "r" },
   *   spec: { min: 2, max: 1 },
   * };
   * RANGES.decode(range); // rules are not evaluated by default
   * const rules = await RANGES.validationRules();
   * assert.throws(() => RANGES.decode(range, { rules }), SchemaError);
   * ```
   *
   * @returns The compiled rules, for `decode`'s `rules` option.
   * @throws {StructuralSchemaError} When a rule does not compile (the API
   *   server would refuse the CRD), naming each in its words.
   */
  async validationRules(): Promise<ValidationRules> {
    // A dynamic import: the engine loads only when rules are asked for,
    // yet `deno compile` and JSR still see it (a literal specifier).
    const rules: RulesModule = await import("../_internal/schema/rules.ts");
    const schema = this.schema;
    const causes = rules.ruleErrors(
      schema,
      "spec.validation.openAPIV3Schema",
    );
    if (causes.length > 0) {
      throw new StructuralSchemaError(this.#crdName(), causes);
    }
    return {
      check: (object, schemaCauses, old) =>
        rules.ruleCauses(schema, object, schemaCauses, old),
    };
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
    const old = isObject(options?.old) ? options.old : undefined;
    const { object, unknown, causes } = decodeWith(this.schema, value, old);
    if (options?.onUnknownField) unknown.forEach(options.onUnknownField);
    if (options?.rules !== undefined) {
      const rules = options.rules.check(object, causes, old);
      causes.push(...rules.causes);
      if (options.onWarning) rules.warnings.forEach(options.onWarning);
    }
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
  /**
   * The definition's validation rules, to evaluate them as the API server
   * does on a write (from {@linkcode ResourceDefinition.validationRules} of
   * the same definition). Default none: rules are not evaluated.
   */
  rules?: ValidationRules | undefined;
  /**
   * The object this one replaces, as on an update: values it keeps are not
   * checked again (the API server's validation ratcheting: a schema or rule
   * tightened since passes them), and rules that name `oldSelf` compare
   * with it. Default none (a create).
   */
  old?: unknown;
  /**
   * Hears each warning: a rule failing on a value the update keeps, as
   * the API server's `Warning` (`spec.count: Invalid value: 500: ...`).
   * Default none.
   */
  onWarning?: ((warning: string) => void) | undefined;
}

/**
 * A definition's validation rules, compiled by
 * {@linkcode ResourceDefinition.validationRules}, for `decode`'s `rules`.
 */
export interface ValidationRules {
  /**
   * Evaluates the rules on a decoded object.
   *
   * @param object The pruned, defaulted object.
   * @param schemaCauses What its schema refuses (an error of some kinds
   *   stops the rules, as on the API server).
   * @param old The object it replaces, on an update.
   * @returns The causes of the rules that refuse it, and the warnings.
   */
  check(
    object: Record<string, unknown>,
    schemaCauses: readonly Cause[],
    old?: Record<string, unknown>,
  ): { causes: Cause[]; warnings: string[] };
}

/** What this file uses of the rules module (and its CEL engine). */
interface RulesModule {
  ruleErrors(schema: ObjectSchema, path: string): Cause[];
  ruleCauses(
    schema: ObjectSchema,
    object: Record<string, unknown>,
    schemaCauses: readonly Cause[],
    old?: Record<string, unknown>,
  ): { causes: Cause[]; warnings: string[] };
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
): ResourceDefinition<S>;
/**
 * Defines a custom resource of several versions, each with its own
 * structural schema (conversion `None`: the objects are the same but for
 * `apiVersion`). The definition is the `Resource` of its storage version
 * (or of `version`); `ObjectOf<typeof definition, "v1beta1">` is the
 * object type of another version, and `definition.forVersion("v1beta1")`
 * its `Resource` and `decode`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { defineResource, type ObjectOf } from "@liken/kubernetes/resource";
 *
 * const GADGETS = defineResource({
 *   group: "example.com",
 *   kind: "Gadget",
 *   plural: "gadgets",
 *   scope: "Namespaced",
 *   status: true,
 *   scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
 *   versions: [
 *     {
 *       name: "v1",
 *       storage: true,
 *       selectableFields: [".spec.color"],
 *       schema: {
 *         type: "object",
 *         properties: {
 *           spec: {
 *             type: "object",
 *             properties: { replicas: { type: "integer" }, color: { type: "string" } },
 *           },
 *           status: { type: "object", properties: { replicas: { type: "integer" } } },
 *         },
 *       },
 *     },
 *     {
 *       name: "v1beta1",
 *       deprecated: true,
 *       deprecationWarning: "use v1",
 *       schema: {
 *         type: "object",
 *         properties: {
 *           spec: { type: "object", properties: { replicas: { type: "integer" } } },
 *         },
 *       },
 *     },
 *   ],
 * });
 * assert.equal(GADGETS.version, "v1");
 * const old: ObjectOf<typeof GADGETS, "v1beta1"> = { metadata: {}, spec: { replicas: 1 } };
 * void old;
 * const crd = GADGETS.crd();
 * assert.deepEqual(crd.spec.versions.map((v) => v.name), ["v1", "v1beta1"]);
 * assert.equal(crd.spec.versions[1]?.deprecationWarning, "use v1");
 * assert.deepEqual(crd.spec.conversion, { strategy: "None" });
 * ```
 *
 * @typeParam V The versions, as written.
 * @typeParam N The version the definition is the `Resource` of.
 * @param options The definition.
 * @returns The definition.
 * @throws {StructuralSchemaError} When the API server would refuse a
 *   version's schema.
 */
export function defineResource<
  const V extends readonly VersionOptions[],
  const N extends V[number]["name"] = StorageVersionOf<V>,
>(
  options: VersionedResourceOptions<V, N>,
): ResourceDefinition<SchemaIn<V, N>, SchemasOf<V>>;
export function defineResource(
  options:
    | ResourceOptions<ObjectSchema>
    | VersionedResourceOptions<readonly VersionOptions[], string>,
): ResourceDefinition<ObjectSchema> {
  return new ResourceDefinition(options);
}

/** The schema of each version, by name. */
export type SchemasOf<V extends readonly VersionOptions[]> = {
  readonly [E in V[number] as E["name"]]: E["schema"];
};

/** The name of the storage version of `versions`. */
export type StorageVersionOf<V extends readonly VersionOptions[]> =
  V[number] extends infer E
    ? E extends
      { readonly name: infer N extends string; readonly storage: true } ? N
    : never
    : never;

/** The schema of version `N` of `versions`. */
export type SchemaIn<V extends readonly VersionOptions[], N extends string> =
  V[number] extends infer E
    ? E extends
      { readonly name: N; readonly schema: infer S extends ObjectSchema } ? S
    : never
    : never;
