/**
 * The checks the API server makes on a core/v1 Event it stores. Which rules
 * apply depends on `eventTime`. Without it (the shape client-go's old
 * recorder writes) only namespaces are compared, and an involved object
 * with no namespace needs the Event in `default`. With it, `kube-system`
 * is accepted too, and the reporting fields and lengths are checked.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import type { FieldError } from "../_verbs/status.ts";

/** The fields of an Event the checks read. */
interface CheckedEvent extends KubeObject {
  involvedObject?: { namespace?: string | undefined } | undefined;
  eventTime?: string | null | undefined;
  reportingComponent?: string | undefined;
  reportingInstance?: string | undefined;
  action?: string | undefined;
  reason?: string | undefined;
  message?: string | undefined;
}

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const NAME_PART_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const bytes = new TextEncoder();

function size(text: string | undefined): number {
  return bytes.encode(text ?? "").length;
}

function required(field: string): FieldError {
  return { field, reason: "FieldValueRequired", message: "Required value" };
}

function wrong(field: string, value: string, detail: string): FieldError {
  return {
    field,
    reason: "FieldValueInvalid",
    message: `Invalid value: "${value}": ${detail}`,
  };
}

// The name-part rules of a qualified name (a DNS prefix is not checked).
function qualifiedName(field: string, value: string): FieldError[] {
  const name = value.includes("/")
    ? value.slice(value.indexOf("/") + 1)
    : value;
  const errors: FieldError[] = [];
  if (name === "") {
    errors.push(wrong(field, value, "name part must be non-empty"));
  } else if (name.length > 63) {
    errors.push(
      wrong(field, value, "name part must be no more than 63 characters"),
    );
  }
  if (!NAME_PART.test(name)) {
    errors.push(wrong(field, value, `name part ${NAME_PART_RULE}`));
  }
  return errors;
}

function tooLong(field: string, limit: number): FieldError {
  return wrong(field, "", `can have at most ${limit} characters`);
}

/** What the API server finds wrong with an Event written through core/v1. */
export function eventErrors(event: CheckedEvent): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = event.metadata.namespace ?? "";
  const involved = event.involvedObject?.namespace ?? "";
  const mismatch = wrong(
    "involvedObject.namespace",
    involved,
    "does not match event.namespace",
  );
  if (!event.eventTime) {
    const ok = involved === ""
      ? namespace === "" || namespace === "default"
      : involved === namespace;
    if (!ok) errors.push(mismatch);
    return errors;
  }
  if (
    involved === "" && namespace !== "default" && namespace !== "kube-system"
  ) errors.push(mismatch);
  const component = event.reportingComponent ?? "";
  if (component === "") errors.push(required("reportingComponent"));
  errors.push(...qualifiedName("reportingComponent", component));
  const instance = event.reportingInstance ?? "";
  if (instance === "") errors.push(required("reportingInstance"));
  if (size(instance) > REPORTING_INSTANCE_LIMIT) {
    errors.push(tooLong("reportingInstance", REPORTING_INSTANCE_LIMIT));
  }
  if ((event.action ?? "") === "") errors.push(required("action"));
  if (size(event.action) > ACTION_LIMIT) {
    errors.push(tooLong("action", ACTION_LIMIT));
  }
  if ((event.reason ?? "") === "") errors.push(required("reason"));
  if (size(event.reason) > REASON_LIMIT) {
    errors.push(tooLong("reason", REASON_LIMIT));
  }
  if (size(event.message) > NOTE_LIMIT) {
    errors.push(tooLong("message", NOTE_LIMIT));
  }
  return errors;
}
