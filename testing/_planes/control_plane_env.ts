// Defaults and bounds that are not part of the public surface; the option
// docs state their values.

/** The environment variable that names the control-plane binary. */
export const CONTROL_PLANE_ENV = "LIKEN_CONTROL_PLANE";
/** The environment variable that names an envtest assets folder. */
export const ENVTEST_ASSETS_ENV = "KUBEBUILDER_ASSETS";
/** Set to `1` to run against the cluster `KUBECONFIG` names (it writes there). */
export const CLUSTER_ENV = "LIKEN_REAL_CLUSTER";
