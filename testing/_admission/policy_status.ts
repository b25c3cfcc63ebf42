/**
 * The type checking kube-apiserver writes into a ValidatingAdmissionPolicy's
 * status (`status.typeChecking`, `status.observedGeneration`): each
 * validation's expressions compiled with `object` and `oldObject` typed by
 * the schema of every kind the policy's rules name exactly, the errors as
 * `expressionWarnings`. kube-controller-manager's status controller writes
 * it (server-side apply, manager `validatingadmissionpolicy-status`) soon
 * after a policy changes; here before the next request that is not about
 * `admissionregistration.k8s.io` (so a read of the policy just written
 * still shows the status without it, as a real server's usually does).
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import {
  CelCompileError,
  compile,
  schemaType,
} from "../../_internal/cel/mod.ts";
import type { CelType } from "../../_internal/cel/mod.ts";
import { builtInSchema } from "../_builtins/schemas.ts";
import { Schema as FieldSchema } from "../_apply/fields.ts";
import { applyConfig, managedFields } from "../_apply/managed.ts";
import { isObject, resourceKey } from "../_store/objects.ts";
import { clone } from "../_verbs/patch.ts";
import { servedVersion } from "../_http/served.ts";
import type { ServerState } from "../_store/state.ts";
import { ADMISSION_GROUP } from "./webhook_config.ts";
import type { RegisteredResource } from "../types.ts";
import { celObjects } from "./policy_syntax.ts";
import { policyVariables } from "./policies.ts";

type Obj = Record<string, unknown>;

const MANAGER = "validatingadmissionpolicy-status";

/**
 * Writes the type checking of every ValidatingAdmissionPolicy whose status
 * has not observed its generation, unless the request is about
 * `admissionregistration.k8s.io` (the controller runs later).
 */
export function checkPolicyTypes(state: ServerState, url: URL): void {
  if (url.pathname.startsWith(`/apis/${ADMISSION_GROUP}/`)) return;
  const resource = state.resources.find((r) =>
    r.group === ADMISSION_GROUP && r.resource === "validatingadmissionpolicies"
  );
  if (resource === undefined) return;
  const rkey = resourceKey(resource);
  for (const [key, live] of state.store.all(rkey)) {
    const status = (live as { status?: Obj }).status;
    if (
      live.metadata.deletionTimestamp ||
      (isObject(status) &&
        status.observedGeneration === live.metadata.generation)
    ) continue;
    const applied = {
      apiVersion: `${ADMISSION_GROUP}/v1`,
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: live.metadata.name },
      status: {
        observedGeneration: live.metadata.generation,
        typeChecking: typeChecking(state, live),
      },
    } as unknown as KubeObject;
    const uid = live.metadata.uid!;
    const { object, entries } = applyConfig(
      clone(live),
      applied,
      state.owners.get(uid) ?? [],
      {
        manager: MANAGER,
        apiVersion: `${ADMISSION_GROUP}/v1`,
        subresource: "status",
      },
      { force: true, schema: new FieldSchema(resource), status: true },
    );
    state.owners.set(uid, entries);
    object.metadata = { ...live.metadata };
    if (state.managedFields) {
      object.metadata.managedFields = managedFields(entries) as never;
    }
    state.store.write(rkey, key, object);
  }
}

function typeChecking(state: ServerState, policy: KubeObject): Obj {
  const spec = (policy as { spec?: Obj }).spec ?? {};
  const kinds = namedKinds(state, spec.matchConstraints);
  const warnings: Obj[] = [];
  const validations = Array.isArray(spec.validations) ? spec.validations : [];
  validations.forEach((validation, i) => {
    if (!isObject(validation)) return;
    for (const field of ["expression", "messageExpression"]) {
      const text = validation[field];
      if (typeof text !== "string") continue;
      let warning = "";
      for (const [gvk, type] of kinds) {
        try {
          compile(celObjects(text), { variables: policyVariables(type) });
        } catch (error) {
          if (!(error instanceof CelCompileError)) throw error;
          warning += `${gvk}: ${error.message}\n`;
        }
      }
      if (warning !== "") {
        warnings.push({
          fieldRef: `spec.validations[${i}].${field}`,
          warning,
        });
      }
    }
  });
  return warnings.length === 0 ? {} : { expressionWarnings: warnings };
}

// The kinds the rules name without wildcards, with their schemas' types.
function namedKinds(state: ServerState, match: unknown): [string, CelType][] {
  if (!isObject(match) || !Array.isArray(match.resourceRules)) return [];
  const out: [string, CelType][] = [];
  const seen = new Set<RegisteredResource>();
  for (const rule of match.resourceRules) {
    if (!isObject(rule)) continue;
    const list = (v: unknown): string[] =>
      Array.isArray(v) ? v.filter((x) => typeof x === "string") : [];
    for (const group of list(rule.apiGroups)) {
      for (const version of list(rule.apiVersions)) {
        for (const name of list(rule.resources)) {
          if ([group, version, name].some((x) => x.includes("*"))) continue;
          const resource = state.resources.find((r) =>
            r.group === group && r.version === version && r.resource === name
          );
          if (resource === undefined || seen.has(resource)) continue;
          seen.add(resource);
          const schema = servedVersion(resource)?.schema ??
            builtInSchema(resource);
          if (schema === undefined) continue;
          out.push([
            `${group}/${version}, Kind=${resource.kind}`,
            asResource(schemaType(schema as never)),
          ]);
        }
      }
    }
  }
  return out;
}

// An object of a kind: `apiVersion` and `kind` strings, `metadata` any
// (ObjectMeta, which neither a CRD's schema nor the fake's built-in
// schemas spell out).
function asResource(type: CelType): CelType {
  if (typeof type === "string" || !("object" in type)) return type;
  return {
    object: {
      ...type.object,
      apiVersion: "string",
      kind: "string",
      metadata: "dyn",
    },
  };
}
