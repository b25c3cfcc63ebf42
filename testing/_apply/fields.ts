/**
 * Field sets, as server-side apply tracks them: paths into an object whose
 * elements are `f:<field>`, `k:<json of the key fields>` (an item of a list
 * map), and `v:<json>` (an item of a set), encoded as the API server's
 * `fieldsV1`; and the list types that decide how a list merges.
 *
 * @module
 */
import { own, setOwn } from "../../_internal/own.ts";
import { clone } from "../_verbs/patch.ts";
import { jsonEqual } from "../../_internal/json.ts";
import { isObject } from "../_store/objects.ts";
import { servedVersion } from "../_http/served.ts";
import type { ListType, RegisteredResource } from "../types.ts";
import { KINDS, MESSAGES, type ProtoField } from "../_protobuf/data.ts";

/** The message of a built-in resource's kind, if the data has it. */
function protoMessage(
  resource: { group: string; version: string; kind: string },
): string | undefined {
  const apiVersion = resource.group === ""
    ? resource.version
    : `${resource.group}/${resource.version}`;
  return KINDS[`${apiVersion}/${resource.kind}`];
}

/**
 * The field of `message` whose JSON name is `name`, looking through the
 * structs Go embeds inline (every kind's TypeMeta).
 */
function fieldOf(message: string, name: string): ProtoField | undefined {
  for (const field of MESSAGES[message] ?? []) {
    if (field[1] === name) return field;
    if (field[1] === "" && field[4].includes("i")) {
      const inner = fieldOf(field[3], name);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/** Whether a field's type is a struct (a message), not a scalar. */
function isStruct(field: ProtoField): boolean {
  return field[3] in MESSAGES;
}

/** One path, as its elements. */
export type Path = string[];
/** A set of paths, each joined by {@linkcode SEP}. */
export type FieldSet = Set<string>;

/** Joins the elements of a path in a {@linkcode FieldSet}. */
export const SEP = "\u0001";

/** List maps the API server's built-in types declare, by field name. */
const KEYED: Readonly<Record<string, readonly string[]>> = {
  containers: ["name"],
  initContainers: ["name"],
  ephemeralContainers: ["name"],
  volumes: ["name"],
  env: ["name"],
  imagePullSecrets: ["name"],
  volumeMounts: ["mountPath"],
  conditions: ["type"],
  ownerReferences: ["uid"],
  hostAliases: ["ip"],
  resourceClaims: ["name"],
};

/** Fields the built-in types declare as sets. */
const SETS = new Set([
  "finalizers",
  "validationActions",
  "volumeLifecycleModes",
]);

/** Objects the built-in types declare as maps (their node is owned too). */
const MAPS = new Set([
  "labels",
  "annotations",
  "data",
  "binaryData",
  "stringData",
  "nodeSelector",
  "matchLabels",
  "selector",
  "limits",
  "requests",
]);

/**
 * Objects the built-in types declare atomic (`x-kubernetes-map-type:
 * atomic`): a LabelSelector wherever it is, a Service's and a
 * ReplicationController's selector, a pod spec's nodeSelector. Each is
 * owned and replaced whole.
 */
const ATOMIC_MAPS = new Set([
  "selector",
  "nodeSelector",
  "labelSelector",
  "namespaceSelector",
  "podSelector",
  // Atomic structs: a binding's roleRef, an ingress backend's port, a
  // ValidatingAdmissionPolicy's matchConstraints.
  "roleRef",
  "port",
  "matchConstraints",
]);

/** Metadata the API server keeps out of every field set. */
const STRIPPED_METADATA = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
]);

/**
 * How one resource's lists merge: what it declares, then the built-in
 * names. A resource served from a CustomResourceDefinition has only what its
 * schema declares (and ObjectMeta's own types under `metadata`).
 */
export class Schema {
  #declared: Readonly<Record<string, ListType>>;
  #custom: boolean;
  #definitions: boolean;

  #message: string | undefined;

  constructor(resource: RegisteredResource) {
    this.#message = protoMessage(resource);
    this.#declared = resource.listTypes ?? {};
    this.#custom = servedVersion(resource) !== undefined;
    this.#definitions = resource.group === "apiextensions.k8s.io" &&
      resource.resource === "customresourcedefinitions";
  }

  /** The list type of the list at `fields` (field names, items skipped). */
  list(fields: readonly string[]): ListType {
    const declared = own(this.#declared, fields.join(".")) as
      | ListType
      | undefined;
    if (declared !== undefined) return declared;
    if (this.#custom && fields[0] !== "metadata") return "atomic";
    const name = fields[fields.length - 1] ?? "";
    if (name === "ports") {
      return fields[fields.length - 2] === "containers"
        ? ["containerPort", "protocol"]
        : ["port", "protocol"];
    }
    if (SETS.has(name)) return "set";
    return Object.hasOwn(KEYED, name) ? KEYED[name]! : "atomic";
  }

  /**
   * Whether a set or map list at `fields` is owned itself when an update
   * adds it, as the API server's field sets show (an apply's hold its
   * items only): a set, every list of a custom resource but under
   * `metadata`, and a built-in kind's list but a pod's containers.
   */
  ownsList(fields: readonly string[], type: ListType): boolean {
    if (type === "set") return true;
    if (this.#custom) return fields[0] !== "metadata";
    // A built-in kind's new list is owned, but for a field Go writes even
    // when empty (a pod's containers: no omitempty), which the empty
    // object kube-apiserver compares with already has.
    return fields[fields.length - 1] !== "containers";
  }

  /**
   * Whether an object at `fields` is owned itself when added (a map, or an
   * optional struct): every object of a custom resource but under
   * `metadata`, and a definition's `spec.conversion` and the optional
   * structs of its webhook.
   */
  /** The Go field at `fields` (field names, items skipped), if known. */
  #field(fields: readonly string[]): ProtoField | undefined {
    let message = this.#message;
    let found: ProtoField | undefined;
    for (const name of fields) {
      if (message === undefined) return undefined;
      found = fieldOf(message, name);
      if (found === undefined) return undefined;
      // A map's items are its values.
      message = found[2] === 3 ? found[5] : found[3];
    }
    return found;
  }

  /**
   * Whether `value` is the zero value of the built-in field at `fields`
   * that is not a pointer: "", 0, false, or an empty struct.
   */
  zero(fields: readonly string[], value: unknown): boolean {
    if (!this.builtIn(fields)) return false;
    const declared = this.#field(fields);
    // Pointers, lists and maps have no zero value of their own.
    if (declared === undefined || declared[2] !== 0) return false;
    if (value === "" || value === 0 || value === false) return true;
    return isObject(value) && Object.keys(value).length === 0 &&
      isStruct(declared);
  }

  /** Whether `fields` is a built-in kind's own field (not under metadata). */
  builtIn(fields: readonly string[]): boolean {
    return !this.#custom && !this.#definitions && fields[0] !== "metadata";
  }

  /** Whether the object at `fields` is an atomic map, owned whole. */
  atomic(fields: readonly string[]): boolean {
    if (this.#custom || this.#definitions || fields[0] === "metadata") {
      return false;
    }
    return ATOMIC_MAPS.has(fields[fields.length - 1] ?? "");
  }

  map(fields: readonly string[]): boolean {
    if (this.#custom && fields[0] !== "metadata") return true;
    // A pointer to a struct (a Deployment's rollingUpdate) is owned itself
    // when added: the Go type's zero has none.
    const declared = this.#field(fields);
    if (
      declared !== undefined && declared[2] === 1 && isStruct(declared)
    ) {
      return true;
    }
    if (this.#definitions && CONVERSION_STRUCTS.has(fields.join("."))) {
      return true;
    }
    return MAPS.has(fields[fields.length - 1] ?? "");
  }
}

/** The optional structs of a definition's `spec.conversion`. */
const CONVERSION_STRUCTS = new Set([
  "spec.conversion",
  "spec.conversion.webhook",
  "spec.conversion.webhook.clientConfig",
  "spec.conversion.webhook.clientConfig.service",
]);

/** What a walk is at: the path and the field names leading to it. */
interface At {
  path: Path;
  fields: string[];
}

const ROOT: At = { path: [], fields: [] };

function field(at: At, name: string): At {
  return { path: [...at.path, `f:${name}`], fields: [...at.fields, name] };
}

function item(at: At, element: string): At {
  return { path: [...at.path, element], fields: at.fields };
}

/** The path element of a list item, or `undefined` when it has no key. */
export function itemElement(
  type: ListType,
  value: unknown,
): string | undefined {
  if (type === "set") return `v:${JSON.stringify(value)}`;
  if (type === "atomic" || !isObject(value)) return undefined;
  const key: Record<string, unknown> = {};
  for (const name of [...type].sort()) {
    if (value[name] !== undefined) key[name] = value[name];
  }
  return Object.keys(key).length === 0 ? undefined : `k:${JSON.stringify(key)}`;
}

/** A list's type, atomic when an item has no key. */
function typeOf(schema: Schema, at: At, list: unknown[]): ListType {
  const type = schema.list(at.fields);
  if (type === "atomic") return type;
  return list.every((v) => itemElement(type, v) !== undefined)
    ? type
    : "atomic";
}

/** Whether a path is kept out of field sets for this scope. */
function stripped(at: At, status: boolean | undefined): boolean {
  const [top, second] = at.fields;
  if (at.path.length === 1) {
    if (top === "apiVersion" || top === "kind") return true;
    if (status !== undefined && (top === "status") !== status) return true;
  }
  return at.path.length === 2 && top === "metadata" &&
    STRIPPED_METADATA.has(second!);
}

/** Whether a path is `metadata`, which no field set holds itself. */
function bare(at: At): boolean {
  return at.path.length === 1 && at.fields[0] === "metadata";
}

/**
 * The paths an applied configuration sets: its leaves, its atomic lists
 * and its list items. `status` scopes it: `true` keeps `status` alone,
 * `false` drops it, `undefined` keeps all.
 */
export function applySet(
  object: unknown,
  schema: Schema,
  status?: boolean,
): FieldSet {
  const out: FieldSet = new Set();
  const walk = (value: unknown, at: At): void => {
    if (stripped(at, status)) return;
    if (
      isObject(value) && (Object.keys(value).length > 0 || bare(at)) &&
      !schema.atomic(at.fields)
    ) {
      for (const [k, v] of Object.entries(value)) walk(v, field(at, k));
      return;
    }
    if (Array.isArray(value) && at.path.length > 0) {
      const type = typeOf(schema, at, value);
      if (type !== "atomic" && value.length > 0) {
        for (const v of value) {
          const child = item(at, itemElement(type, v)!);
          out.add(child.path.join(SEP));
          if (type !== "set" && isObject(v)) {
            for (const [k, w] of Object.entries(v)) walk(w, field(child, k));
          }
        }
        return;
      }
    }
    if (at.path.length > 0) out.add(at.path.join(SEP));
  };
  walk(object, ROOT);
  return out;
}

/**
 * What an update changed, as paths: `changed` (new or different leaves,
 * and the nodes of new items and maps with all below them) and `removed`
 * (paths that went, each standing for all below it).
 */
export function diffSets(
  before: unknown,
  after: unknown,
  schema: Schema,
  status?: boolean,
): { changed: FieldSet; removed: FieldSet } {
  const changed: FieldSet = new Set();
  const removed: FieldSet = new Set();
  // `fresh`: inside a new list item of a built-in kind, which the Go type's
  // zero value has nothing of, so every struct in it is owned as a node.
  const added = (
    value: unknown,
    at: At,
    node: boolean,
    fresh = false,
  ): void => {
    if (stripped(at, status)) return;
    if (isObject(value) && schema.atomic(at.fields)) {
      // An empty one is what the Go type holds anyway: no one owns it.
      if (Object.keys(value).length > 0) changed.add(at.path.join(SEP));
      return;
    }
    if (node && !bare(at)) changed.add(at.path.join(SEP));
    if (isObject(value) && (Object.keys(value).length > 0 || bare(at))) {
      for (const [k, v] of Object.entries(value)) {
        const child = field(at, k);
        const owned = fresh
          ? isObject(v) && Object.keys(v).length > 0
          : schema.map(child.fields) && isObject(v);
        added(v, child, owned, fresh);
      }
      return;
    }
    if (Array.isArray(value) && at.path.length > 0) {
      const type = typeOf(schema, at, value);
      if (type !== "atomic" && value.length > 0) {
        if (schema.ownsList(at.fields, type)) changed.add(at.path.join(SEP));
        for (const v of value) {
          const child = item(at, itemElement(type, v)!);
          added(
            type === "set" ? undefined : v,
            child,
            true,
            schema.builtIn(at.fields),
          );
        }
        return;
      }
    }
    // The Go type's zero value (a non-pointer "" or empty struct) is what
    // the API server compares with, so setting it owns nothing.
    if (!fresh && schema.zero(at.fields, value)) return;
    if (at.path.length > 0) changed.add(at.path.join(SEP));
  };
  const walk = (old: unknown, now: unknown, at: At): void => {
    if (stripped(at, status)) return;
    if (isObject(old) && isObject(now) && schema.atomic(at.fields)) {
      if (!jsonEqual(old, now)) changed.add(at.path.join(SEP));
      return;
    }
    if (isObject(old) && isObject(now)) {
      if (Object.keys(now).length === 0 || Object.keys(old).length === 0) {
        if (!jsonEqual(old, now)) {
          for (const k of Object.keys(old)) {
            removed.add(field(at, k).path.join(SEP));
          }
          added(now, at, false);
        }
        return;
      }
      for (const [k, v] of Object.entries(now)) {
        const child = field(at, k);
        if (!Object.hasOwn(old, k)) {
          added(v, child, schema.map(child.fields) && isObject(v));
        } else walk(old[k], v, child);
      }
      for (const k of Object.keys(old)) {
        if (!Object.hasOwn(now, k)) removed.add(field(at, k).path.join(SEP));
      }
      return;
    }
    if (Array.isArray(old) && Array.isArray(now) && at.path.length > 0) {
      const type = typeOf(schema, at, [...old, ...now]);
      if (type !== "atomic") {
        const olds = new Map(old.map((v) => [itemElement(type, v)!, v]));
        const nows = new Map(now.map((v) => [itemElement(type, v)!, v]));
        for (const [element, v] of nows) {
          const child = item(at, element);
          if (!olds.has(element)) {
            added(
              type === "set" ? undefined : v,
              child,
              true,
              schema.builtIn(at.fields),
            );
          } else if (type !== "set") walk(olds.get(element), v, child);
        }
        for (const element of olds.keys()) {
          if (!nows.has(element)) removed.add(item(at, element).path.join(SEP));
        }
        return;
      }
    }
    if (!jsonEqual(old, now)) {
      if (now === undefined) removed.add(at.path.join(SEP));
      else added(now, at, false);
    }
  };
  walk(before, after, ROOT);
  return { changed, removed };
}

/** The list item an element names, as its index, or -1. */
function findItem(list: unknown[], element: string, type: ListType): number {
  return list.findIndex((v) => itemElement(type, v) === element);
}

/** The value at a path, or `undefined`. */
export function valueAt(object: unknown, path: Path, schema: Schema): unknown {
  let at: unknown = object;
  const fields: string[] = [];
  for (const element of path) {
    if (element.startsWith("f:")) {
      const name = element.slice(2);
      at = isObject(at) ? own(at, name) : undefined;
      fields.push(name);
    } else if (Array.isArray(at)) {
      const i = findItem(at, element, schema.list(fields));
      at = i < 0 ? undefined : at[i];
    } else return undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

/** Removes the value at a path from `object` (changed in place). */
export function removeAt(object: unknown, path: Path, schema: Schema): void {
  const parent = valueAt(object, path.slice(0, -1), schema);
  const last = path[path.length - 1]!;
  if (last.startsWith("f:")) {
    if (isObject(parent)) delete parent[last.slice(2)];
    return;
  }
  if (!Array.isArray(parent)) return;
  const fields = path.filter((e) => e.startsWith("f:")).map((e) => e.slice(2));
  const i = findItem(parent, last, schema.list(fields));
  if (i >= 0) parent.splice(i, 1);
}

/**
 * Merges an applied configuration into the live object: maps key by key,
 * list maps and sets item by item, anything else replaced.
 */
export function mergeApplied(
  live: unknown,
  applied: unknown,
  schema: Schema,
  fields: string[] = [],
): unknown {
  if (isObject(live) && isObject(applied) && !schema.atomic(fields)) {
    const out: Record<string, unknown> = { ...live };
    for (const [k, v] of Object.entries(applied)) {
      setOwn(out, k, mergeApplied(own(live, k), v, schema, [...fields, k]));
    }
    return out;
  }
  if (Array.isArray(live) && Array.isArray(applied) && fields.length > 0) {
    const type = typeOf(schema, { path: [], fields }, [...live, ...applied]);
    if (type !== "atomic") {
      const out = [...live];
      for (const v of applied) {
        const i = findItem(out, itemElement(type, v)!, type);
        if (i < 0) out.push(clone(v));
        else if (type !== "set") {
          out[i] = mergeApplied(out[i], v, schema, fields);
        }
      }
      return out;
    }
  }
  return clone(applied);
}

/** Whether a path is `prefix` or below it. */
export function within(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix + SEP);
}

/** A field set as the API server writes `fieldsV1`. */
export function encodeFields(set: FieldSet): Record<string, unknown> {
  interface Node {
    member: boolean;
    children: Map<string, Node>;
  }
  const root: Node = { member: false, children: new Map() };
  for (const key of set) {
    let node = root;
    for (const element of key.split(SEP)) {
      let next = node.children.get(element);
      if (!next) {
        node.children.set(
          element,
          next = { member: false, children: new Map() },
        );
      }
      node = next;
    }
    node.member = true;
  }
  const out = (node: Node): Record<string, unknown> => {
    const record: Record<string, unknown> = {};
    if (node.member && node.children.size > 0) record["."] = {};
    for (const name of [...node.children.keys()].sort()) {
      record[name] = out(node.children.get(name)!);
    }
    return record;
  };
  return out(root);
}

/** A path as the API server prints it in a conflict: `.spec.containers[name="a"].image`. */
export function pathText(key: string): string {
  return key.split(SEP).map((element) => {
    const body = element.slice(2);
    if (element.startsWith("f:")) return `.${body}`;
    if (element.startsWith("v:")) return `[=${body}]`;
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return `[${
      Object.entries(parsed).map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(",")
    }]`;
  }).join("");
}
