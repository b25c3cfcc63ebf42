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
  "managedFields of built-in kinds where the fake does not follow the Go types' zero values: a PriorityLevelConfiguration's defaulted nested structs lack their `.` entry";
const EMPTY_OWNERS =
  "the API server records no managedFields for an update of an object that has none (it was created with no fields but name); the fake records the update's entry";

const CONTROLLER =
  "the recording control plane runs the controller manager in a binary named control-plane, so the namespace controller's status entry's manager is `control-plane`; in a cluster, and on the fake, it is `kube-controller-manager`";

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
  "builtin-cluster-defaults/create prioritylevelconfigurations": BUILTIN_OWNERS,
  "builtin-cluster-defaults/get prioritylevelconfigurations": BUILTIN_OWNERS,
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
  "custom-resource-versions/get established definition":
    "the recording control plane runs the apiextensions controllers in one binary named control-plane, so the status entry's manager is `control-plane`; kube-apiserver, and the fake, name it `kube-apiserver`",
  "builtin-namespace-lifecycle/get the terminating namespace": CONTROLLER,
  "builtin-namespace-lifecycle/release": CONTROLLER,
  "builtin-admission/budget after":
    "an eviction writes the budget's status as the API server; the recording control plane's binary is named control-plane, so its entry's manager is `control-plane` where a cluster, and the fake, say `kube-apiserver`",
};
