/**
 * Where the fake knowingly answers otherwise than kube-apiserver (1.37, as
 * recorded in `golden/`), by `scenario/step`, each with the reason it is
 * not matched yet. The differential test fails when an entry no longer
 * differs, so this list stays true; the "Known differences" table of
 * docs/fake.md is the same list in prose.
 *
 * @module
 */

const SETS =
  'managedFields of a set-typed list (finalizers) lack the list\'s own `".": {}` entry';
const EVENT_SHAPE =
  "core/v1 Events: the fake tracks involvedObject field by field (the API server owns it atomically) and does not write the zero eventTime and reportingComponent";
const NO_DEPLOYMENTS =
  "the fake serves a fixed set of built-in kinds (no apps/v1 Deployments); register a definition to test a status subresource";
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
  "status-subresource/create ignores status": NO_DEPLOYMENTS,
  "status-subresource/main path ignores status": NO_DEPLOYMENTS,
  "status-subresource/status path": NO_DEPLOYMENTS,
  "status-subresource/status ignores spec": NO_DEPLOYMENTS,
  "status-subresource/spec bumps generation": NO_DEPLOYMENTS,
  "status-subresource/labels keep generation": NO_DEPLOYMENTS,
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
