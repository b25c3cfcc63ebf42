/**
 * What a write of a custom resource served from a CustomResourceDefinition
 * goes through, as the API server's decoder and validator take it: unknown
 * fields pruned (a warning each, or a 400 with `fieldValidation=Strict`),
 * defaults set, then the object validated against the version's schema
 * (422 `Invalid`, one cause per field). The schema work is the `resource`
 * module's (`decodeWith`); a CustomResourceDefinition itself gets its
 * defaults and its checks here too.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { decodeWith, pruneWith } from "../../_internal/schema/decode.ts";
import { ruleCauses } from "../../_internal/schema/rules.ts";
import { builtInSchema } from "../_builtins/schemas.ts";
import { badRequest, failure, invalid, StatusError } from "../_verbs/status.ts";
import { servedVersion } from "../_http/served.ts";
import {
  defaultDefinition,
  definitionErrors,
  isDefinitions,
} from "../_crds/crd.ts";
import type { ServerState } from "../_store/state.ts";
import {
  defaultWebhookConfiguration,
  isWebhookConfigurations,
  webhookConfigurationErrors,
} from "./webhook_config.ts";
import type { RegisteredResource } from "../types.ts";

/**
 * Decodes a written object of `resource` as the API server does, before
 * the verb's own rules: prunes and defaults a custom resource (noting a
 * warning per unknown field, or refusing them under
 * `fieldValidation=Strict`), defaults a CustomResourceDefinition.
 *
 * @returns The object to write (a new one for a custom resource).
 */
export function admit(
  state: ServerState,
  resource: RegisteredResource,
  object: KubeObject,
  query: URLSearchParams,
): KubeObject {
  const decoded = decodeServed(state, resource, object, query);
  return state.admission?.mutate(resource, decoded) ?? decoded;
}

function decodeServed(
  state: ServerState,
  resource: RegisteredResource,
  object: KubeObject,
  query: URLSearchParams,
): KubeObject {
  if (isDefinitions(resource)) {
    defaultDefinition(object);
    return object;
  }
  if (isWebhookConfigurations(resource)) {
    defaultWebhookConfiguration(object);
    return object;
  }
  const schema = servedVersion(resource)?.schema;
  const builtIn = schema === undefined ? builtInSchema(resource) : undefined;
  if (schema === undefined && builtIn === undefined) return object;
  // A built-in kind is only pruned here: its defaults and validation are
  // its own (`_builtins/defaults.ts`, `_builtins/validation.ts`).
  const decoded = schema !== undefined
    ? decodeWith(schema, object as unknown as Record<string, unknown>)
    : pruneWith(builtIn!, object as unknown as Record<string, unknown>);
  const unknown = decoded.unknown;
  if (unknown.length > 0) {
    const validation = query.get("fieldValidation") ?? "Warn";
    const text = unknown.map((path) => `unknown field ${JSON.stringify(path)}`);
    if (validation === "Strict") {
      throw badRequest(
        `${resource.kind} in version ${
          JSON.stringify(resource.version)
        } cannot be handled as a ${resource.kind}: strict decoding error: ${
          text.join(", ")
        }`,
      );
    }
    if (validation !== "Ignore") state.warnings.push(...text);
  }
  return decoded.object as unknown as KubeObject;
}

/**
 * A server-side apply configuration of a custom resource as the API server
 * reads it: pruned, not defaulted (the applier owns what it sent alone).
 */
export function appliedConfig(
  resource: RegisteredResource,
  config: KubeObject,
): KubeObject {
  const schema = servedVersion(resource)?.schema;
  if (schema === undefined) return config;
  return pruneWith(schema, config as unknown as Record<string, unknown>)
    .object as unknown as KubeObject;
}

/**
 * Refuses a custom resource that does not validate against its version's
 * schema and its validation rules, or a CustomResourceDefinition the API
 * server refuses: 422 Invalid with one cause per field. On an update
 * (`old`), values the update keeps are not checked again (ratcheting):
 * their failing rules only add to `warnings`.
 */
export function validateServed(
  resource: RegisteredResource,
  object: KubeObject,
  options: { old?: KubeObject; warnings?: string[] } = {},
): void {
  const name = object.metadata.name ?? "";
  if (isWebhookConfigurations(resource)) {
    const causes = webhookConfigurationErrors(object);
    if (causes.length > 0) {
      throw invalid(resource.kind, name, causes, resource.group);
    }
    return;
  }
  if (isDefinitions(resource)) {
    const causes = definitionErrors(object, options.old);
    if (causes.length > 0) {
      throw invalid(resource.kind, name, causes, resource.group);
    }
    return;
  }
  const schema = servedVersion(resource)?.schema;
  if (schema === undefined) return;
  const value = object as unknown as Record<string, unknown>;
  const before = options.old as unknown as
    | Record<string, unknown>
    | undefined;
  const { causes } = decodeWith(schema, value, before);
  const rules = ruleCauses(schema, value, causes, before);
  causes.push(...rules.causes);
  options.warnings?.push(...rules.warnings);
  if (causes.length > 0) {
    throw invalid(resource.kind, name, causes, resource.group);
  }
}

/**
 * Refuses a strategic merge patch of a custom resource (it has no Go type
 * to read patch strategies from): 415, in the API server's words.
 */
export function refuseStrategic(
  resource: RegisteredResource,
  type: string,
): void {
  if (
    type !== "application/strategic-merge-patch+json" ||
    servedVersion(resource) === undefined
  ) return;
  throw new StatusError(failure(
    415,
    "UnsupportedMediaType",
    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
  ));
}

/** The `Warning` headers of the warnings a request earned, added to its answer. */
export function withWarnings(response: Response, warnings: string[]): Response {
  for (const text of warnings) {
    response.headers.append("warning", `299 - ${JSON.stringify(text)}`);
  }
  return response;
}
