/**
 * Where the fake knowingly answers otherwise than kube-apiserver (1.37, as
 * recorded in `golden/`), by `scenario/step`, each with the reason it is
 * not matched yet. The differential test fails when an entry no longer
 * differs, so this list stays true; the "Known differences" table of
 * docs/fake.md is the same list in prose.
 *
 * @module
 */

const EVENT_SHAPE =
  "core/v1 Events: the fake tracks involvedObject field by field (the API server owns it atomically) and does not write the zero eventTime and reportingComponent";
const BUILTIN_OWNERS =
  "managedFields of built-in kinds: the fake does not read the OpenAPI's atomic structs and maps (a LabelSelector, a RoleRef, a Service's selector) nor writes the `.` entry of a struct that defaulting made";
const NAMESPACE_DELETION =
  "deleting a Namespace removes it and its contents at once (no Terminating phase, no asynchronous namespace controller)";
const NO_CEL =
  "x-kubernetes-validations (CEL rules) are not evaluated: there is no CEL evaluator in Deno, so a write the API server refuses (422) is taken";
const NO_RATCHETING =
  "updates are not ratcheted: a value that no longer passes a tightened schema or rule is refused even when the update keeps it";
const EMPTY_OWNERS =
  "the API server records no managedFields for an update of an object that has none (it was created with no fields but name); the fake records the update's entry";

/** `scenario/step` → why the fake differs there. */
export const KNOWN_DIFFERENCES: Readonly<Record<string, string>> = {
  "list-paging/bad token":
    "continue tokens are the fake's own encoding: a garbled one is refused in other words",
  "selectors/invalid label selector":
    "the label selector parser's error wording differs (the status and reason match)",
  "watch-events/update": EMPTY_OWNERS,
  "watch-events/watch": EMPTY_OWNERS,
  "watch-gone/watch from compacted":
    "the 410 message is the watch cache's (`too old resource version`); an API server reading etcd directly words it otherwise",
  "server-side-apply/apply a drops y":
    "an apply that gives up every field keeps an empty entry for its manager on the API server; the fake drops the entry",
  "server-side-apply/get":
    "an apply that gives up every field keeps an empty entry for its manager on the API server; the fake drops the entry",
  "status-subresource/create ignores status": BUILTIN_OWNERS,
  "status-subresource/main path ignores status": BUILTIN_OWNERS,
  "status-subresource/status path": BUILTIN_OWNERS,
  "status-subresource/status ignores spec": BUILTIN_OWNERS,
  "status-subresource/spec bumps generation": BUILTIN_OWNERS,
  "status-subresource/labels keep generation": BUILTIN_OWNERS,
  "builtin-defaults/create secrets": BUILTIN_OWNERS,
  "builtin-defaults/get secrets": BUILTIN_OWNERS,
  "builtin-defaults/create services": BUILTIN_OWNERS,
  "builtin-defaults/get services": BUILTIN_OWNERS,
  "builtin-defaults/create deployments": BUILTIN_OWNERS,
  "builtin-defaults/get deployments": BUILTIN_OWNERS,
  "builtin-defaults/create statefulsets": BUILTIN_OWNERS,
  "builtin-defaults/get statefulsets": BUILTIN_OWNERS,
  "builtin-defaults/create daemonsets": BUILTIN_OWNERS,
  "builtin-defaults/get daemonsets": BUILTIN_OWNERS,
  "builtin-defaults/create replicasets": BUILTIN_OWNERS,
  "builtin-defaults/get replicasets": BUILTIN_OWNERS,
  "builtin-defaults/create jobs": BUILTIN_OWNERS,
  "builtin-defaults/get jobs": BUILTIN_OWNERS,
  "builtin-defaults/create cronjobs": BUILTIN_OWNERS,
  "builtin-defaults/get cronjobs": BUILTIN_OWNERS,
  "builtin-defaults/create ingresses": BUILTIN_OWNERS,
  "builtin-defaults/get ingresses": BUILTIN_OWNERS,
  "builtin-defaults/create networkpolicies": BUILTIN_OWNERS,
  "builtin-defaults/get networkpolicies": BUILTIN_OWNERS,
  "builtin-defaults/create rolebindings": BUILTIN_OWNERS,
  "builtin-defaults/get rolebindings": BUILTIN_OWNERS,
  "builtin-defaults/create poddisruptionbudgets": BUILTIN_OWNERS,
  "builtin-defaults/get poddisruptionbudgets": BUILTIN_OWNERS,
  "builtin-cluster-defaults/create clusterrolebindings": BUILTIN_OWNERS,
  "builtin-cluster-defaults/get clusterrolebindings": BUILTIN_OWNERS,
  "builtin-cluster-defaults/create namespaces": BUILTIN_OWNERS,
  "builtin-cluster-defaults/get namespaces": BUILTIN_OWNERS,
  "builtin-cluster-defaults/create prioritylevelconfigurations": BUILTIN_OWNERS,
  "builtin-cluster-defaults/get prioritylevelconfigurations": BUILTIN_OWNERS,
  "builtin-cluster-defaults/create validatingadmissionpolicies": BUILTIN_OWNERS,
  "builtin-cluster-defaults/get validatingadmissionpolicies": BUILTIN_OWNERS,
  "builtin-cluster-defaults/create csidrivers":
    "CSIDriver defaults (attachRequired, fsGroupPolicy, ...) are not applied",
  "builtin-cluster-defaults/get csidrivers":
    "CSIDriver defaults (attachRequired, fsGroupPolicy, ...) are not applied",
  "builtin-cluster-defaults/create deviceclasses": BUILTIN_OWNERS,
  "builtin-cluster-defaults/get deviceclasses": BUILTIN_OWNERS,
  "builtin-scale/create deployments": BUILTIN_OWNERS,
  "builtin-scale/get deployments": BUILTIN_OWNERS,
  "builtin-scale/create statefulsets": BUILTIN_OWNERS,
  "builtin-scale/get statefulsets": BUILTIN_OWNERS,
  "builtin-scale/create replicasets": BUILTIN_OWNERS,
  "builtin-scale/get replicasets": BUILTIN_OWNERS,
  "builtin-status-strategy/create": BUILTIN_OWNERS,
  "builtin-status-strategy/status keeps labels": BUILTIN_OWNERS,
  "builtin-status-strategy/create statefulsets": BUILTIN_OWNERS,
  "builtin-status-strategy/statefulsets status": BUILTIN_OWNERS,
  "builtin-status-strategy/create replicasets": BUILTIN_OWNERS,
  "builtin-status-strategy/replicasets status": BUILTIN_OWNERS,
  "builtin-status-strategy/create daemonsets": BUILTIN_OWNERS,
  "builtin-status-strategy/daemonsets status": BUILTIN_OWNERS,
  "builtin-status-strategy/create job": BUILTIN_OWNERS,
  "builtin-status-strategy/job status keeps labels": BUILTIN_OWNERS,
  "builtin-status-strategy/pod status keeps labels": BUILTIN_OWNERS,
  "builtin-validation/deployment": BUILTIN_OWNERS,
  "builtin-validation/secret": BUILTIN_OWNERS,
  "builtin-validation/job": BUILTIN_OWNERS,
  "builtin-validation/warn unknown field": BUILTIN_OWNERS,
  "builtin-strategic/create": BUILTIN_OWNERS,
  "builtin-strategic/containers merge by name": BUILTIN_OWNERS,
  "builtin-strategic/merge the second container": BUILTIN_OWNERS,
  "builtin-strategic/delete a container": BUILTIN_OWNERS,
  "builtin-strategic/finalizers merge as a set": BUILTIN_OWNERS,
  "builtin-strategic/delete from a primitive list": BUILTIN_OWNERS,
  "builtin-strategic/replace a list": BUILTIN_OWNERS,
  "builtin-strategic/release": BUILTIN_OWNERS,
  "builtin-strategic/apply containers": BUILTIN_OWNERS,
  "builtin-tables/table of deployments": BUILTIN_OWNERS,
  "builtin-tables/table of replicasets": BUILTIN_OWNERS,
  "builtin-tables/table of statefulsets": BUILTIN_OWNERS,
  "builtin-tables/table of jobs": BUILTIN_OWNERS,
  "builtin-tables/table of cronjobs": BUILTIN_OWNERS,
  "builtin-tables/table of daemonsets":
    "managedFields as for other built-in kinds, and the API server's Table row leaves out the DaemonSet's deprecated.daemonset.template.generation annotation, which its GET shows (not understood yet)",
  "builtin-validation/job template is immutable":
    "the API server prints the refused template as its internal Go struct (`Spec`, `Containers`, nulls); the fake prints it as JSON (status, reason and field match)",
  "leases/bad duration":
    "Lease specs are not validated (the election never writes a bad one)",
  "leases/bad time":
    "MicroTime fields are not parsed, so a malformed time is stored",
  "events/create": EVENT_SHAPE,
  "events/series patch": EVENT_SHAPE,
  "events/bad type": EVENT_SHAPE,
  "events/long reason": EVENT_SHAPE,
  "metadata-only/not acceptable":
    "an Accept the fake cannot answer gets JSON, where the API server answers 406",
  "garbage-collection/orphan keeps the child":
    "orphaning removes the ownerReference but keeps its managedFields entry",
  "namespace-deletion/create":
    "the Namespace's spec.finalizers is recorded in managedFields (the API server sets it without an owner)",
  "namespace-deletion/delete": NAMESPACE_DELETION,
  "namespace-deletion/create while terminating": NAMESPACE_DELETION,
  "custom-resource-versions/get established definition":
    "the recording control plane runs the apiextensions controllers in one binary named control-plane, so the status entry's manager is `control-plane`; kube-apiserver, and the fake, name it `kube-apiserver`",
  "custom-resource-parts/a validation rule refuses": NO_CEL,
  "custom-resource-parts/a scale beyond a validation rule": NO_CEL,
  "validation-rules/create refused by a rule": NO_CEL,
  "validation-rules/create refused by a root rule": NO_CEL,
  "validation-rules/messageExpression": NO_CEL,
  "validation-rules/messageExpression that fails falls back to message": NO_CEL,
  "validation-rules/a rule on list items": NO_CEL,
  "validation-rules/a rule over map keys": NO_CEL,
  "validation-rules/optionalOldSelf on create": NO_CEL,
  "validation-rules/a rule that errors at runtime": NO_CEL,
  "validation-rules/a rule over the runtime cost limit": NO_CEL,
  "validation-rules/rules fail at three levels": NO_CEL,
  "validation-rules/two rules fail on one node": NO_CEL,
  "validation-rules/schema error and rule error": NO_CEL,
  "validation-rules/a type error skips the rules": NO_CEL,
  "validation-rules/update refused": NO_CEL,
  "validation-rules/a transition rule refuses": NO_CEL,
  "validation-rules/optionalOldSelf refuses a shrink": NO_CEL,
  "validation-rules/optionalOldSelf takes a growth": NO_CEL,
  "validation-rules/merge patch refused": NO_CEL,
  "validation-rules/json patch refused": NO_CEL,
  "validation-rules/apply refused": NO_CEL,
  "validation-rules/apply that creates, refused": NO_CEL,
  "validation-rules/status refused": NO_CEL,
  "validation-rules/status accepted": NO_CEL,
  "validation-rules/scale refused": NO_CEL,
  "validation-rules/scale accepted": NO_CEL,
  "validation-rules/the object after": NO_CEL,
  "validation-rules-definitions/a syntax error": NO_CEL,
  "validation-rules-definitions/no such overload": NO_CEL,
  "validation-rules-definitions/no such field": NO_CEL,
  "validation-rules-definitions/a rule that is not a boolean": NO_CEL,
  "validation-rules-definitions/a messageExpression that is not a string":
    NO_CEL,
  "validation-rules-definitions/a bad fieldPath": NO_CEL,
  "validation-rules-definitions/a message with a line break": NO_CEL,
  "validation-rules-definitions/an empty rule": NO_CEL,
  "validation-rules-definitions/oldSelf under an atomic list": NO_CEL,
  "validation-rules-definitions/a rule over the estimated cost limit": NO_CEL,
  "validation-rules-definitions/two bad rules": NO_CEL,
  "validation-ratcheting/a new object gets every check": NO_RATCHETING,
  "validation-ratcheting/metadata change keeps invalid values": NO_RATCHETING,
  "validation-ratcheting/a changed object fails its own rule": NO_RATCHETING,
  "validation-ratcheting/unchanged fields are ratcheted": NO_RATCHETING,
  "validation-ratcheting/a changed value is checked (maxLength)": NO_RATCHETING,
  "validation-ratcheting/a changed value is checked (enum)": NO_RATCHETING,
  "validation-ratcheting/a changed value is checked (rule)": NO_RATCHETING,
  "validation-ratcheting/list-map items correlate by key": NO_RATCHETING,
  "validation-ratcheting/a changed list-map item is checked": NO_RATCHETING,
  "validation-ratcheting/atomic list items do not correlate": NO_RATCHETING,
  "validation-ratcheting/update keeping old values": NO_RATCHETING,
  "validation-ratcheting/apply keeping old values": NO_RATCHETING,
  "validation-ratcheting/status keeps an old value": NO_RATCHETING,
  "validation-ratcheting/status changes an old value": NO_RATCHETING,
  "validation-ratcheting/the object after": NO_RATCHETING,
};
