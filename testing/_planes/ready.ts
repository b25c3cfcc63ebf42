// What a started control plane reports, in every mode (apart from
// real_control_plane.ts so that the modes' files need not import it).

/** What the control plane printed once it was ready. */
export interface ReadyLine {
  /** The API server's URL, such as `https://127.0.0.1:41234`. */
  server: string;
  /** A second API server on the same etcd with `--watch-cache=false`. */
  serverNoWatchCache?: string | undefined;
  /** An admin kubeconfig (the `system:masters` group). */
  kubeconfig: string;
  /** The admin bearer token (empty on an existing cluster: use `client()`). */
  token: string;
  /** The cluster CA: the path of its PEM file (on an existing cluster the PEM, or empty). */
  ca: string;
  /** The etcd client URL (plain HTTP on 127.0.0.1; empty on an existing cluster). */
  etcd: string;
  /** The state directory (empty on an existing cluster). */
  dir: string;
  /** The audit log: one JSON line per request (empty on an existing cluster). */
  auditLog: string;
  /** The API server's `gitVersion`, such as `v1.34.2`. */
  version: string;
  /** How long the start took, in milliseconds. */
  startupMillis: number;
  /** A bearer token per user of {@linkcode RealControlPlaneOptions.users}. */
  users?: Record<string, string> | undefined;
}

/** What a restart of the API server measured. */
export interface Restarted {
  /** How long the old process took to exit, in milliseconds. */
  stopMillis: number;
  /** From its exit until the new one answered `/readyz`, in milliseconds. */
  readyMillis: number;
}
