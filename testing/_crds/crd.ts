/**
 * CustomResourceDefinitions, as kube-apiserver's apiextensions server
 * handles them: their defaults and validation on a write, the initial
 * status, the resources each served version adds (discovery, REST paths,
 * printer columns, list types), the Established and NamesAccepted
 * conditions its controllers set, and the removal of the resource and its
 * objects when the definition goes.
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import type { Schema } from "../../resource/schema.ts";
import type { Cause } from "../../resource/errors.ts";
import { servedStructural } from "../../_internal/schema/structural.ts";
import { ruleErrors } from "../../_internal/schema/rules.ts";
import { clone } from "../_verbs/patch.ts";
import { jsonEqual } from "../../_internal/json.ts";
import { isObject, resourceKey } from "../_store/objects.ts";
import { ALL_VERBS } from "../_store/registry.ts";
import {
  noteServed,
  type ScaleSubresource,
  servedVersion,
} from "../_http/served.ts";
import {
  conversionErrors,
  defaultConversion,
  webhookOf,
} from "./conversion_config.ts";
import { diffSets, Schema as FieldSchema } from "../_apply/fields.ts";
import { managedFields, recordUpdate } from "../_apply/managed.ts";
import type { Change } from "../_store/store.ts";
import type { ServerState } from "../_store/state.ts";
import type { PrinterColumn } from "../../resource/crd.ts";
import type { ListType, RegisteredResource } from "../types.ts";

/** The group of CustomResourceDefinitions. */
export const DEFINITION_GROUP = "apiextensions.k8s.io";
/** The store key of the CustomResourceDefinitions. */
const DEFINITIONS = `${DEFINITION_GROUP}/customresourcedefinitions`;

/** The parts of a definition the fake reads. */
interface Definition extends KubeObject {
  spec?: {
    group?: string;
    scope?: string;
    names?: Names;
    versions?: Version[];
    conversion?: unknown;
  };
  status?: {
    conditions?: Condition[] | null;
    acceptedNames?: Names;
    storedVersions?: string[];
  };
}

interface Names {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

interface Version {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Schema };
  subresources?: { status?: unknown; scale?: ScaleSubresource | null };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath?: string }[];
}

interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** Whether `resource` is the CustomResourceDefinitions. */
export function isDefinitions(resource: RegisteredResource): boolean {
  return resource.group === DEFINITION_GROUP &&
    resource.resource === "customresourcedefinitions";
}

/** The spec defaults the API server sets (`SetDefaults_...`), in place. */
export function defaultDefinition(object: KubeObject): void {
  const spec = (object as Definition).spec;
  if (!isObject(spec)) return;
  const names = spec.names;
  if (isObject(names) && typeof names.kind === "string" && names.kind !== "") {
    if (!names.singular) names.singular = names.kind.toLowerCase();
    if (!names.listKind) names.listKind = `${names.kind}List`;
  }
  defaultConversion(spec);
}

/** The status a new definition starts with, before its controllers run. */
export function initialStatus(object: KubeObject): void {
  (object as Definition).status = {
    conditions: null,
    acceptedNames: { plural: "", kind: "" },
    storedVersions: storageVersion(object as Definition) === undefined
      ? []
      : [storageVersion(object as Definition)!],
  };
}

/** Adds a new storage version to `status.storedVersions`, as an update does. */
export function noteStorageVersion(object: KubeObject): void {
  const definition = object as Definition;
  const version = storageVersion(definition);
  if (version === undefined || !isObject(definition.status)) return;
  const stored = definition.status.storedVersions ?? [];
  if (!stored.includes(version)) {
    definition.status.storedVersions = [...stored, version];
  }
}

function storageVersion(definition: Definition): string | undefined {
  return definition.spec?.versions?.find((v) => v?.storage)?.name;
}

/** The rules and message expressions of every version of a definition. */
function storedExpressions(definition: Definition | undefined): Set<string> {
  const out = new Set<string>();
  const walk = (value: Schema | undefined): void => {
    if (!isObject(value)) return;
    const node = value as Schema;
    for (const rule of node["x-kubernetes-validations"] ?? []) {
      if (typeof rule?.rule === "string") out.add(rule.rule);
      if (typeof rule?.messageExpression === "string") {
        out.add(rule.messageExpression);
      }
    }
    for (const child of Object.values(node.properties ?? {})) walk(child);
    const more = node.additionalProperties;
    if (typeof more === "object") walk(more);
    walk(node.items);
  };
  for (const version of definition?.spec?.versions ?? []) {
    walk(version?.schema?.openAPIV3Schema);
  }
  return out;
}

/**
 * What the API server refuses in a definition: its name, its storage
 * version, and each version's schema (required, and structural).
 */
export function definitionErrors(
  object: KubeObject,
  old?: KubeObject,
): Cause[] {
  const definition = object as Definition;
  // Expressions the definition already had compile as stored ones.
  const stored = storedExpressions(old as Definition | undefined);
  const spec = isObject(definition.spec) ? definition.spec : {};
  const out: Cause[] = [];
  const name = object.metadata.name ?? "";
  const plural = spec.names?.plural ?? "";
  if (name !== `${plural}.${spec.group ?? ""}`) {
    out.push({
      field: "metadata.name",
      reason: "FieldValueInvalid",
      message: `Invalid value: ${
        JSON.stringify(name)
      }: must be spec.names.plural+"."+spec.group`,
    });
  }
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.filter((v) => v?.storage === true).length !== 1) {
    // The API server prints the versions as Go values; the fake names them.
    out.push({
      field: "spec.versions",
      reason: "FieldValueInvalid",
      message: `Invalid value: ${
        JSON.stringify(versions.map((v) => v?.name ?? "").join(","))
      }: must have exactly one version marked as storage version`,
    });
  }
  // The API server checks versions whose schemas are all the same as one
  // schema at spec.validation (its internal form), else each version's.
  const first = versions[0]?.schema?.openAPIV3Schema;
  const same = versions.length > 0 &&
    versions.every((v) => jsonEqual(v?.schema?.openAPIV3Schema, first));
  versions.forEach((version, i) => {
    if (same && i > 0) return;
    const path = same
      ? "spec.validation.openAPIV3Schema"
      : `spec.versions[${i}].schema.openAPIV3Schema`;
    const schema = version?.schema?.openAPIV3Schema;
    if (!isObject(schema)) {
      out.push({
        field: `spec.versions[${i}].schema.openAPIV3Schema`,
        reason: "FieldValueRequired",
        message: "Required value: schemas are required",
      });
    } else {
      out.push(
        ...servedStructural(schema, path),
        ...ruleErrors(schema, path, stored),
      );
    }
  });
  out.push(...conversionErrors(spec.conversion));
  return out;
}

/**
 * Serves what the stored definitions define, from now on: every change to
 * a definition (through the API or the store) adds, changes or removes its
 * resources, sets its conditions soon after (as the API server's
 * controllers do), and a deleted definition takes its objects with it.
 */
export function serveDefinitions(state: ServerState): void {
  state.store.subscribe((change) => {
    if (change.resource === DEFINITIONS) definitionChanged(state, change);
  });
}

function definitionChanged(state: ServerState, change: Change): void {
  const definition = change.object as Definition;
  const name = change.key;
  const before = state.resources.filter((r) =>
    servedVersion(r)?.definition === name
  );
  state.resources = state.resources.filter((r) => !before.includes(r));
  if (change.type === "DELETED") {
    const gone = before[0];
    if (gone === undefined) return;
    const rkey = resourceKey(gone);
    for (const [key] of state.store.all(rkey)) state.store.delete(rkey, key);
    return;
  }
  const added = servedResources(name, definition);
  state.resources = state.resources.filter((r) =>
    !added.some((a) =>
      a.group === r.group && a.version === r.version &&
      a.resource === r.resource
    )
  );
  state.resources.push(...added);
  if (!established(definition)) {
    // The controllers answer after the write, not within it.
    Promise.resolve().then(() => establish(state, name));
  }
}

/** The resources of a definition's served versions, highest priority first. */
function servedResources(
  name: string,
  definition: Definition,
): RegisteredResource[] {
  const spec = definition.spec;
  const names = spec?.names;
  if (!spec?.group || !names?.plural || !names.kind) return [];
  const versions = (spec.versions ?? []).filter((v) => v?.served && v.name);
  const storage = storageVersion(definition) ?? versions[0]?.name ?? "";
  const storageSchema = (spec.versions ?? []).find((v) => v?.name === storage)
    ?.schema?.openAPIV3Schema;
  const out: RegisteredResource[] = [];
  for (const version of versions.sort((a, b) => byPriority(a.name!, b.name!))) {
    const schema = version.schema?.openAPIV3Schema;
    const resource: RegisteredResource = {
      group: spec.group,
      version: version.name!,
      resource: names.plural,
      kind: names.kind,
      listKind: names.listKind ?? `${names.kind}List`,
      namespaced: spec.scope !== "Cluster",
      statusSubresource: isObject(version.subresources) &&
        version.subresources.status !== undefined &&
        version.subresources.status !== null,
      generation: true,
      verbs: ALL_VERBS,
    };
    if (names.shortNames?.length) {
      resource.shortNames = Object.freeze([...names.shortNames]);
    }
    if (version.additionalPrinterColumns?.length) {
      resource.printerColumns = Object.freeze(
        version.additionalPrinterColumns.map((c) => Object.freeze({ ...c })),
      );
    }
    if (isObject(schema)) {
      const types = listTypes(schema);
      if (Object.keys(types).length > 0) {
        resource.listTypes = Object.freeze(types);
      }
    }
    Object.freeze(resource);
    const scale = version.subresources?.scale;
    noteServed(resource, {
      definition: name,
      schema: isObject(schema) ? clone(schema) : undefined,
      storage: `${spec.group}/${storage}`,
      storageSchema: isObject(storageSchema) ? clone(storageSchema) : undefined,
      scale: isObject(scale) ? { ...scale } : undefined,
      selectableFields: (version.selectableFields ?? []).flatMap((f) =>
        typeof f?.jsonPath === "string" ? [f.jsonPath.replace(/^\./, "")] : []
      ),
      webhook: webhookOf(spec.conversion),
      warning: version.deprecated
        ? version.deprecationWarning ?? deprecation(version.name!, spec)
        : undefined,
    });
    out.push(resource);
  }
  return out;
}

/**
 * The API server's warning for a deprecated version without its own:
 * `<group>/<version> <Kind> is deprecated`, then `; use <group>/<newer>
 * <Kind>` naming the highest served version that is not deprecated and is
 * newer by version priority, when there is one.
 */
function deprecation(
  version: string,
  spec: NonNullable<Definition["spec"]>,
): string {
  const kind = spec.names?.kind ?? "";
  const text = `${spec.group}/${version} ${kind} is deprecated`;
  const newer = (spec.versions ?? [])
    .filter((v) =>
      v?.served && !v.deprecated && v.name && byPriority(v.name, version) < 0
    )
    .map((v) => v.name!)
    .sort(byPriority);
  return newer.length === 0
    ? text
    : `${text}; use ${spec.group}/${newer[0]} ${kind}`;
}

/**
 * Kubernetes' version priority: GA before beta before alpha, higher
 * numbers first, and versions of another form last, alphabetically.
 */
export function byPriority(a: string, b: string): number {
  const rank = (v: string): number[] | undefined => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!match) return undefined;
    const tier = match[2] === undefined ? 3 : match[2] === "beta" ? 2 : 1;
    return [tier, Number(match[1]), Number(match[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  if (ra === undefined || rb === undefined) {
    if (ra !== undefined) return -1;
    if (rb !== undefined) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (let i = 0; i < 3; i++) {
    if (ra[i] !== rb[i]) return rb[i]! - ra[i]!;
  }
  return 0;
}

/**
 * The list types a schema declares, by the dotted path of field names
 * (list items skipped), as server-side apply reads them.
 */
export function listTypes(schema: Schema): Record<string, ListType> {
  const out: Record<string, ListType> = {};
  const walk = (node: Schema, fields: string[]): void => {
    const type = node["x-kubernetes-list-type"];
    if (type !== undefined && fields.length > 0) {
      out[fields.join(".")] = type === "map"
        ? Object.freeze([...node["x-kubernetes-list-map-keys"] ?? []])
        : type;
    }
    if (node.items !== undefined) walk(node.items, fields);
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      walk(child, [...fields, name]);
    }
  };
  walk(schema, []);
  return out;
}

/** Whether the definition is established under the names it asks for. */
function established(definition: Definition): boolean {
  const conditions = definition.status?.conditions ?? [];
  return conditions.some((c) => c.type === "Established") &&
    conditions.some((c) => c.type === "NamesAccepted") &&
    jsonEqual(definition.status?.acceptedNames, definition.spec?.names);
}

/**
 * Accepts the definition's names and establishes it, as the naming and
 * establishing controllers do (through `/status`, as `kube-apiserver`).
 * Name conflicts between definitions are not checked.
 */
function establish(state: ServerState, name: string): void {
  const resource = state.resources.find(isDefinitions);
  const live = state.store.peek(DEFINITIONS, name) as Definition | undefined;
  if (!resource || !live || live.metadata.deletionTimestamp) return;
  if (established(live)) return;
  const next = clone(live);
  const now = rfc3339();
  const status = isObject(next.status) ? next.status : {};
  next.status = status;
  status.acceptedNames = clone(next.spec?.names ?? {});
  const conditions = [...(status.conditions ?? [])];
  const set = (condition: Condition): void => {
    const at = conditions.findIndex((c) => c.type === condition.type);
    const old = conditions[at];
    const since = old?.status === condition.status
      ? old.lastTransitionTime ?? now
      : now;
    const updated = { ...condition, lastTransitionTime: since };
    if (at < 0) conditions.push(updated);
    else conditions[at] = updated;
  };
  set({
    type: "NamesAccepted",
    status: "True",
    reason: "NoConflicts",
    message: "no conflicts found",
  });
  set({
    type: "Established",
    status: "True",
    reason: "InitialNamesAccepted",
    message: "the initial names have been accepted",
  });
  status.conditions = conditions;
  const uid = live.metadata.uid!;
  const owners = recordUpdate(
    state.owners.get(uid) ?? [],
    {
      manager: "kube-apiserver",
      apiVersion: `${DEFINITION_GROUP}/v1`,
      subresource: "status",
    },
    diffSets(live, next, new FieldSchema(resource), true),
  );
  state.owners.set(uid, owners);
  if (state.managedFields) next.metadata.managedFields = managedFields(owners);
  state.store.write(DEFINITIONS, name, next);
}
