/**
 * Typed custom resources from one definition: `defineResource` takes the
 * kind's names and its structural OpenAPI v3 schema (written once, `as
 * const`), and from that alone gives
 *
 * - the object's TypeScript type, inferred at the type level:
 *   `type Gadget = ObjectOf<typeof GADGETS>` (no code generation);
 * - the `Resource` of its collection (and controller `Primary`): the
 *   definition itself has `group`, `version`, `resource`, `namespaced` and
 *   `kind`;
 * - the CustomResourceDefinition (`apiextensions.k8s.io/v1`):
 *   `GADGETS.crd()`;
 * - `GADGETS.decode(value)`: validation with the API server's field paths
 *   and wording ({@linkcode SchemaError}, whose `causes` are a 422's
 *   `details.causes`), pruning of unknown fields and defaulting, as the API
 *   server does for a structural schema.
 *
 * `CONDITIONS_SCHEMA` and `OBJECT_REFERENCE_SCHEMA` are schema pieces most
 * kinds repeat: a `status.conditions` list and a reference to an object.
 *
 * A schema the API server would refuse as not structural is refused by
 * `defineResource` with the API server's reasons
 * ({@linkcode StructuralSchemaError}).
 *
 * | keyword                                                          | type                                                                  | decode                                                                                                                                    |
 * | ---------------------------------------------------------------- | --------------------------------------------------------------------- | ----------------------------------------------------------------------------------------------------------------------------------------- |
 * | `type`                                                           | `string`, `number`, `boolean`, arrays, objects                        | checked (`must be of type integer: "string"`); required on every node but beside the two extensions below                                 |
 * | `format`                                                         | —                                                                     | `int32`, `int64`, `date-time`, `date`, `uuid`, `byte`, `ipv4` checked; others pass (as kube-openapi's registry does for unknown names)    |
 * | `properties`, `required`                                         | fields; required ones not optional                                    | unknown fields pruned; `Required value`                                                                                                   |
 * | `items`                                                          | `T[]`                                                                 | each item checked and pruned; array-form `items` refused                                                                                  |
 * | `additionalProperties`                                           | `Record<string, T>` (`true`: `Record<string, unknown>`)               | each value checked and pruned; refused beside `properties`, and `false`                                                                   |
 * | `enum`                                                           | a union of the literals                                               | `Unsupported value: "x": supported values: …`                                                                                             |
 * | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`     | —                                                                     | `should be greater than or equal to 1` and the other three forms                                                                          |
 * | `multipleOf`                                                     | —                                                                     | `should be a multiple of n`                                                                                                               |
 * | `minLength`, `maxLength`                                         | —                                                                     | characters (code points); `should be at least n chars long`; `Too long: may not be more than n bytes`                                     |
 * | `pattern`                                                        | —                                                                     | JavaScript `RegExp` with the `u` flag, unanchored (the API server uses Go's RE2: look-arounds differ)                                     |
 * | `minItems`, `maxItems`                                           | —                                                                     | `should have at least n items`; `Too many: 3: must have at most 2 items`                                                                  |
 * | `minProperties`, `maxProperties`                                 | —                                                                     | `should have at least n properties`; `Too many: n: must have at most m items`                                                             |
 * | `nullable`                                                       | `\| null`                                                             | a `null` of a field that is not `nullable` is dropped (or defaulted); elsewhere a type error                                              |
 * | `default`                                                        | —                                                                     | set where the field is absent and its parent present, then defaults inside it; a default that is pruned or does not validate is refused   |
 * | `x-kubernetes-preserve-unknown-fields`                           | `unknown`, or `& Record<string, unknown>` beside `properties`         | unknown fields kept (named ones still checked and pruned)                                                                                 |
 * | `x-kubernetes-int-or-string`                                     | `number \| string`                                                    | an integer or a string                                                                                                                    |
 * | `x-kubernetes-embedded-resource`                                 | —                                                                     | `apiVersion`, `kind`, `metadata` kept (metadata cut to ObjectMeta); must be `type: object`                                                |
 * | `x-kubernetes-list-type`, `x-kubernetes-list-map-keys`           | —                                                                     | into the CRD; `set` items unique and `map` items unique by key (`Duplicate value`); `map` needs keys                                      |
 * | `x-kubernetes-map-type`, `description`, `example`                | —                                                                     | into the CRD only                                                                                                                         |
 * | `x-kubernetes-validations` (CEL)                                 | —                                                                     | into the CRD, at any level; the fake API server enforces them; `decode` only with `rules` (`validationRules()`), never by default         |
 * | `allOf`, `anyOf`, `oneOf`, `not`                                 | —                                                                     | refused by `defineResource` (not evaluated yet)                                                                                           |
 * | `$ref`, `definitions`, `dependencies`, `additionalItems`, `patternProperties`, `id`, `$schema`, `uniqueItems: true` | —            | refused, with the API server's reason                                                                                                     |
 *
 * Beside the schema, the CRD carries what the options say, per version:
 *
 * | option                                   | in the CRD                                                                                    |
 * | ---------------------------------------- | --------------------------------------------------------------------------------------------- |
 * | `version` + `schema`                     | one version, served and stored                                                                |
 * | `versions` (`name`, `schema`, `served`, `storage`) | every version, each with its own schema (`ObjectOf<typeof D, "v1beta1">`, `D.forVersion("v1beta1")`); exactly one `storage: true`; `conversion: None`, or a webhook by `crd({ conversion })` |
 * | `deprecated`, `deprecationWarning`       | per version: the API server's 299 `Warning` on each request for it (its own wording by default) |
 * | `status`, `scale`                        | `subresources.status`, `subresources.scale` (`specReplicasPath`, `statusReplicasPath`, `labelSelectorPath`) |
 * | `selectableFields`                       | `selectableFields[].jsonPath`: field selectors may name them                                  |
 * | `printerColumns`                         | `additionalPrinterColumns`                                                                    |
 * | `shortNames`, `categories`               | `names.shortNames`, `names.categories`                                                        |
 *
 * `status`, `scale`, `selectableFields` and `printerColumns` given beside
 * `versions` are each version's unless it sets its own.
 *
 * `decode` does not check `apiVersion` and `kind`, nor `metadata` beyond
 * its shape (the API server's name rules are its own). Passed as an
 * informer's `decode`, it costs a deep copy of each object and one walk of
 * it and its schema.
 *
 * @example Define, decode, write the CRD
 * ```ts
 * import assert from "node:assert/strict";
 * import {
 *   defineResource,
 *   type ObjectOf,
 *   SchemaError,
 * } from "@liken/kubernetes/resource";
 *
 * const GADGETS = defineResource({
 *   group: "example.com",
 *   version: "v1",
 *   kind: "Gadget",
 *   plural: "gadgets",
 *   scope: "Namespaced",
 *   status: true,
 *   shortNames: ["gd"],
 *   printerColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
 *   schema: {
 *     type: "object",
 *     properties: {
 *       spec: {
 *         type: "object",
 *         required: ["size"],
 *         properties: {
 *           color: { type: "string", default: "blue" },
 *           size: { type: "integer", minimum: 1 },
 *           tags: { type: "array", maxItems: 2, items: { type: "string" } },
 *         },
 *       },
 *       status: { type: "object", properties: { ready: { type: "boolean" } } },
 *     },
 *   },
 * });
 * type Gadget = ObjectOf<typeof GADGETS>;
 *
 * const gadget: Gadget = GADGETS.decode({
 *   metadata: { name: "g" },
 *   spec: { size: 2, extra: "pruned" },
 * });
 * assert.deepEqual(gadget.spec, { color: "blue", size: 2 });
 *
 * assert.throws(
 *   () => GADGETS.decode({ metadata: { name: "bad" }, spec: { size: 0, tags: ["a", "b", "c"] } }),
 *   (error) =>
 *     error instanceof SchemaError &&
 *     error.message === 'Gadget.example.com "bad" is invalid: [' +
 *         "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1, " +
 *         "spec.tags: Too many: 3: must have at most 2 items]",
 * );
 *
 * assert.equal(GADGETS.crd().metadata.name, "gadgets.example.com");
 * ```
 *
 * @module
 */
export * from "./definition.ts";
export * from "./errors.ts";
export * from "./crd.ts";
export * from "./schema.ts";
export * from "./parts.ts";
