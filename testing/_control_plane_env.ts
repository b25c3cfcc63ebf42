// Defaults and bounds that are not part of the public surface; the option
// docs state their values.

/** The environment variable that names the control-plane binary. */
export const CONTROL_PLANE_ENV = "LIKEN_CONTROL_PLANE";
