/**
 * Where the fake knowingly answers otherwise than kube-apiserver (1.37, as
 * recorded in `golden/`), by `scenario/step`, each with the reason it is
 * not matched yet. The differential test fails when an entry no longer
 * differs, so this list stays true; the README's "Known differences" table
 * is the same list in prose.
 *
 * @module
 */

const SETS =
  'managedFields of a set-typed list (finalizers) lack the list\'s own `".": {}` entry';
const EVENT_SHAPE =
  "core/v1 Events: the fake tracks involvedObject field by field (the API server owns it atomically) and does not write the zero eventTime and reportingComponent";
const NO_DEFAULTS =
  "the built-in kinds' defaults are not applied yet (a Deployment's strategy, a pod template's restartPolicy, ...), nor their managedFields";
const NAMESPACE_DELETION =
  "deleting a Namespace removes it and its contents at once (no Terminating phase, no asynchronous namespace controller)";
const NO_CEL =
  "x-kubernetes-validations (CEL rules) are not evaluated: there is no CEL evaluator in Deno, so a write the API server refuses (422) is taken";
const EMPTY_OWNERS =
  "the API server records no managedFields for an update of an object that has none (it was created with no fields but name); the fake records the update's entry";

/** `scenario/step` → why the fake differs there. */
export const KNOWN_DIFFERENCES: Readonly<Record<string, string>> = {
  "list-paging/bad token":
    "continue tokens are the fake's own encoding: a garbled one is refused in other words",
  "selectors/invalid label selector":
    "the label selector parser's error wording differs (the status and reason match)",
  "selectors/unsupported field":
    "field selectors read any dotted path; the API server allows only the kind's indexed fields",
  "watch-events/update": EMPTY_OWNERS,
  "watch-events/watch": EMPTY_OWNERS,
  "watch-gone/watch from compacted":
    "the 410 message is the watch cache's (`too old resource version`); an API server reading etcd directly words it otherwise",
  "finalizers/create": SETS,
  "finalizers/delete": SETS,
  "finalizers/get while deleting": SETS,
  "server-side-apply/apply a drops y":
    "an apply that gives up every field keeps an empty entry for its manager on the API server; the fake drops the entry",
  "server-side-apply/get":
    "an apply that gives up every field keeps an empty entry for its manager on the API server; the fake drops the entry",
  "status-subresource/create ignores status": NO_DEFAULTS,
  "status-subresource/main path ignores status": NO_DEFAULTS,
  "status-subresource/status path": NO_DEFAULTS,
  "status-subresource/status ignores spec": NO_DEFAULTS,
  "status-subresource/spec bumps generation": NO_DEFAULTS,
  "status-subresource/labels keep generation": NO_DEFAULTS,
  "builtin-defaults/create secrets": NO_DEFAULTS,
  "builtin-defaults/get secrets": NO_DEFAULTS,
  "builtin-defaults/create pods": NO_DEFAULTS,
  "builtin-defaults/get pods": NO_DEFAULTS,
  "builtin-defaults/create services": NO_DEFAULTS,
  "builtin-defaults/get services": NO_DEFAULTS,
  "builtin-defaults/create persistentvolumeclaims": NO_DEFAULTS,
  "builtin-defaults/get persistentvolumeclaims": NO_DEFAULTS,
  "builtin-defaults/create deployments": NO_DEFAULTS,
  "builtin-defaults/get deployments": NO_DEFAULTS,
  "builtin-defaults/create statefulsets": NO_DEFAULTS,
  "builtin-defaults/get statefulsets": NO_DEFAULTS,
  "builtin-defaults/create daemonsets": NO_DEFAULTS,
  "builtin-defaults/get daemonsets": NO_DEFAULTS,
  "builtin-defaults/create replicasets": NO_DEFAULTS,
  "builtin-defaults/get replicasets": NO_DEFAULTS,
  "builtin-defaults/create jobs": NO_DEFAULTS,
  "builtin-defaults/get jobs": NO_DEFAULTS,
  "builtin-defaults/create cronjobs": NO_DEFAULTS,
  "builtin-defaults/get cronjobs": NO_DEFAULTS,
  "builtin-defaults/create ingresses": NO_DEFAULTS,
  "builtin-defaults/get ingresses": NO_DEFAULTS,
  "builtin-defaults/create networkpolicies": NO_DEFAULTS,
  "builtin-defaults/get networkpolicies": NO_DEFAULTS,
  "builtin-defaults/create rolebindings": NO_DEFAULTS,
  "builtin-defaults/get rolebindings": NO_DEFAULTS,
  "builtin-defaults/create horizontalpodautoscalers": NO_DEFAULTS,
  "builtin-defaults/get horizontalpodautoscalers": NO_DEFAULTS,
  "builtin-defaults/create poddisruptionbudgets": NO_DEFAULTS,
  "builtin-defaults/get poddisruptionbudgets": NO_DEFAULTS,
  "builtin-cluster-defaults/create clusterroles": NO_DEFAULTS,
  "builtin-cluster-defaults/get clusterroles": NO_DEFAULTS,
  "builtin-cluster-defaults/create clusterrolebindings": NO_DEFAULTS,
  "builtin-cluster-defaults/get clusterrolebindings": NO_DEFAULTS,
  "builtin-cluster-defaults/create ingressclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/get ingressclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/create priorityclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/get priorityclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/create nodes": NO_DEFAULTS,
  "builtin-cluster-defaults/get nodes": NO_DEFAULTS,
  "builtin-cluster-defaults/create namespaces": NO_DEFAULTS,
  "builtin-cluster-defaults/get namespaces": NO_DEFAULTS,
  "builtin-cluster-defaults/create prioritylevelconfigurations": NO_DEFAULTS,
  "builtin-cluster-defaults/get prioritylevelconfigurations": NO_DEFAULTS,
  "builtin-cluster-defaults/create validatingadmissionpolicies": NO_DEFAULTS,
  "builtin-cluster-defaults/get validatingadmissionpolicies": NO_DEFAULTS,
  "builtin-cluster-defaults/create flowschemas": NO_DEFAULTS,
  "builtin-cluster-defaults/get flowschemas": NO_DEFAULTS,
  "builtin-cluster-defaults/create runtimeclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/get runtimeclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/create csidrivers": NO_DEFAULTS,
  "builtin-cluster-defaults/get csidrivers": NO_DEFAULTS,
  "builtin-cluster-defaults/create storageclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/get storageclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/create deviceclasses": NO_DEFAULTS,
  "builtin-cluster-defaults/get deviceclasses": NO_DEFAULTS,
  "builtin-scale/create deployments": NO_DEFAULTS,
  "builtin-scale/get deployments": NO_DEFAULTS,
  "builtin-scale/create statefulsets": NO_DEFAULTS,
  "builtin-scale/get statefulsets": NO_DEFAULTS,
  "builtin-scale/create replicasets": NO_DEFAULTS,
  "builtin-scale/get replicasets": NO_DEFAULTS,
  "builtin-status-strategy/create": NO_DEFAULTS,
  "builtin-status-strategy/status keeps labels": NO_DEFAULTS,
  "builtin-status-strategy/create statefulsets": NO_DEFAULTS,
  "builtin-status-strategy/statefulsets status": NO_DEFAULTS,
  "builtin-status-strategy/create replicasets": NO_DEFAULTS,
  "builtin-status-strategy/replicasets status": NO_DEFAULTS,
  "builtin-status-strategy/create daemonsets": NO_DEFAULTS,
  "builtin-status-strategy/daemonsets status": NO_DEFAULTS,
  "builtin-status-strategy/create job": NO_DEFAULTS,
  "builtin-status-strategy/job status keeps labels": NO_DEFAULTS,
  "builtin-status-strategy/create pod": NO_DEFAULTS,
  "builtin-status-strategy/pod status keeps labels": NO_DEFAULTS,
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
};
