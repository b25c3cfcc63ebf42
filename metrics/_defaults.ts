// Defaults and bounds that are not part of the public surface; the option
// docs state their values.

/**
 * How long one reconcile may run before the health check calls its
 * controller stuck: 10 min. Override it per controller with
 * {@linkcode ControllerMetricsOptions.stuckAfter}.
 */
export const STUCK_AFTER = 600_000;

/**
 * How long one check may take before it counts as failed: 5 s (the kubelet
 * gives a probe 1 s by default, so a slow check fails there first).
 */
export const CHECK_TIMEOUT = 5_000;

/**
 * The default address of the probe server: every interface, as the kubelet
 * probes the pod's IP.
 */
export const PROBE_HOSTNAME = "0.0.0.0";

/**
 * The default port of the probe server.
 */
export const PROBE_PORT = 8080;

/**
 * The `Content-Type` of the text exposition format, version 0.0.4.
 */
export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * Prometheus's default histogram buckets, in seconds.
 */
export const DEFAULT_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
]);
