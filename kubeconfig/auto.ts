import { Client } from "../apiclient/mod.ts";
import { loadKubeconfig, type LoadKubeconfigOptions } from "./load.ts";

/** Options of {@linkcode autoClient}. */
export interface AutoClientOptions extends LoadKubeconfigOptions {
  /**
   * In a pod: the directory holding the ServiceAccount's `ca.crt`, `token`
   * and `namespace`. Default `/var/run/secrets/kubernetes.io/serviceaccount`.
   */
  serviceAccountDir?: string;
  /**
   * In a pod: the API server's URL. Default: the address that
   * `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` name. A name such
   * as `https://kubernetes.default.svc` lets a binary be compiled with
   * `--allow-net=kubernetes.default.svc:443` rather than the cluster's IP.
   */
  inClusterServer?: string;
}

/**
 * Makes a client for wherever the program runs: in a pod (the environment
 * has `KUBERNETES_SERVICE_HOST`) the in-cluster client of
 * {@linkcode Client.inCluster}; elsewhere the client of
 * {@linkcode loadKubeconfig}. The client's `defaultNamespace` is the pod's
 * namespace in a pod, and the context's namespace (or `default`) from a
 * kubeconfig.
 *
 * It lives in `kubeconfig` so that an operator that only runs in pods can
 * import `apiclient` alone and keep the YAML parser out of its graph.
 *
 * Permissions: `--allow-env=KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT`
 * plus those of the path it takes (see {@linkcode Client.inCluster} and
 * {@linkcode loadKubeconfig}).
 *
 * @example From a kubeconfig when not in a pod
 * ```ts
 * import assert from "node:assert/strict";
 * import { autoClient } from "@liken/kubernetes/kubeconfig";
 *
 * await Deno.mkdir(".tmp", { recursive: true });
 * const path = await Deno.makeTempFile({ dir: ".tmp", suffix: ".yaml" });
 * await Deno.writeTextFile(path, JSON.stringify({
 *   "current-context": "dev",
 *   clusters: [{ name: "c", cluster: { server: "http://127.0.0.1:8080" } }],
 *   contexts: [{ name: "dev", context: { cluster: "c", namespace: "apps" } }],
 * }));
 * if (Deno.env.get("KUBERNETES_SERVICE_HOST") === undefined) {
 *   using client = await autoClient({ path });
 *   assert.equal(client.defaultNamespace, "apps");
 * }
 * await Deno.remove(path);
 * ```
 *
 * @param options The ServiceAccount directory for a pod, and the kubeconfig
 * options for elsewhere.
 * @returns A client of the cluster's API server.
 */
export async function autoClient(
  options: AutoClientOptions = {},
): Promise<Client> {
  options.signal?.throwIfAborted();
  let host: string | undefined;
  try {
    host = Deno.env.get("KUBERNETES_SERVICE_HOST");
  } catch {
    // Without --allow-env for it, this cannot be a pod set up for us.
    host = undefined;
  }
  if (host) {
    const inCluster: {
      serviceAccountDir?: string;
      timeout?: number;
      server?: string;
    } = {};
    if (options.inClusterServer !== undefined) {
      inCluster.server = options.inClusterServer;
    }
    if (options.serviceAccountDir !== undefined) {
      inCluster.serviceAccountDir = options.serviceAccountDir;
    }
    if (options.timeout !== undefined) inCluster.timeout = options.timeout;
    return await Client.inCluster(inCluster);
  }
  const { client } = await loadKubeconfig(options);
  return client;
}
