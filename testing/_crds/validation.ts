/**
 * The API server's validation of object metadata and ConfigMap and Secret
 * keys, in its words (recorded from kube-apiserver 1.37 by the
 * differential suite).
 *
 * @module
 */

import type { KubeObject } from "../../apiclient/types.ts";
import { type FieldError, invalid } from "../_verbs/status.ts";
import type { RegisteredResource } from "../types.ts";

const SUBDOMAIN =
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SUBDOMAIN_TEXT =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const NAME_PART_TEXT =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const LABEL_VALUE_TEXT =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_TEXT =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_LABEL_TEXT =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_TEXT =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/**
 * The name rule of a kind whose rule is not the RFC 1123 subdomain most
 * kinds share: what is wrong with a name, or `undefined`.
 */
function nameRule(
  resource: RegisteredResource,
): ((name: string) => string | undefined) | undefined {
  const label = (pattern: RegExp, text: string) => (name: string) =>
    name.length > 63
      ? "must be no more than 63 characters"
      : pattern.test(name)
      ? undefined
      : text;
  if (resource.group === "rbac.authorization.k8s.io") {
    // RBAC names are path segments: any text but `.`, `..`, `/` and `%`.
    return (name) =>
      name === "." || name === ".."
        ? `may not be '${name}'`
        : name.includes("/")
        ? "may not contain '/'"
        : name.includes("%")
        ? "may not contain '%'"
        : undefined;
  }
  if (resource.group !== "") return undefined;
  if (resource.resource === "namespaces") {
    return label(DNS_LABEL, DNS_LABEL_TEXT);
  }
  if (resource.resource === "services") return label(DNS_1035, DNS_1035_TEXT);
  return undefined;
}

/**
 * Refuses an object whose name, labels or (for ConfigMaps and Secrets)
 * data keys the API server refuses: 422 Invalid with one cause each.
 */
export function validateMetadata(
  resource: RegisteredResource,
  object: KubeObject,
): void {
  const errors: FieldError[] = [];
  const name = object.metadata.name ?? "";
  const quoted = (value: string): string =>
    `Invalid value: ${JSON.stringify(value)}`;
  const rule = nameRule(resource);
  if (name !== "" && rule !== undefined) {
    const problem = rule(name);
    if (problem !== undefined) {
      errors.push({
        field: "metadata.name",
        reason: "FieldValueInvalid",
        message: `${quoted(name)}: ${problem}`,
      });
    }
  } else if (name !== "") {
    if (name.length > 253) {
      errors.push({
        field: "metadata.name",
        reason: "FieldValueInvalid",
        message: `${quoted(name)}: must be no more than 253 characters`,
      });
    } else if (!SUBDOMAIN.test(name)) {
      errors.push({
        field: "metadata.name",
        reason: "FieldValueInvalid",
        message: `${quoted(name)}: ${SUBDOMAIN_TEXT}`,
      });
    }
  }
  for (const [key, value] of Object.entries(object.metadata.labels ?? {})) {
    const slash = key.lastIndexOf("/");
    const part = slash === -1 ? key : key.slice(slash + 1);
    const prefix = slash === -1 ? undefined : key.slice(0, slash);
    if (
      part.length > 63 || !NAME_PART.test(part) ||
      (prefix !== undefined && !SUBDOMAIN.test(prefix))
    ) {
      errors.push({
        field: "metadata.labels",
        reason: "FieldValueInvalid",
        message: `${quoted(key)}: ${NAME_PART_TEXT}`,
      });
    }
    if (typeof value === "string" && !LABEL_VALUE.test(value)) {
      errors.push({
        field: "metadata.labels",
        reason: "FieldValueInvalid",
        message: `${quoted(value)}: ${LABEL_VALUE_TEXT}`,
      });
    }
  }
  if (
    resource.group === "" &&
    (resource.resource === "configmaps" || resource.resource === "secrets")
  ) {
    const record = object as { data?: object; binaryData?: object };
    for (const field of ["data", "binaryData"] as const) {
      for (const key of Object.keys(record[field] ?? {})) {
        if (!CONFIG_KEY.test(key)) {
          errors.push({
            field: `${field}[${key}]`,
            reason: "FieldValueInvalid",
            message: `${quoted(key)}: ${CONFIG_KEY_TEXT}`,
          });
        }
      }
    }
  }
  if (errors.length > 0) {
    throw invalid(resource.kind, name, errors, resource.group);
  }
}
