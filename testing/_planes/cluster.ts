// The cluster mode of RealControlPlane: an existing cluster from the
// kubeconfig that KUBECONFIG names, used only when LIKEN_REAL_CLUSTER=1
// says so (the suites write there). The admin client is the kubeconfig's
// (any credential loadKubeconfig takes); the CA is kept for clients with
// another token.
import { loadKubeconfig } from "../../kubeconfig/load.ts";
import { readConfig } from "../../kubeconfig/_config.ts";
import type { Client } from "../../apiclient/client.ts";
import type { ReadyLine } from "./ready.ts";

/** A connected cluster: its ready line, admin client and CA. */
export interface ClusterPlane {
  ready: ReadyLine;
  /** The cluster's CA (PEM), or "" when the kubeconfig names none. */
  caPem: string;
  admin: Client;
  stop(): void;
}

/** Connects to the current context of `kubeconfig`; checks it answers. */
export async function connectCluster(
  kubeconfig: string,
): Promise<ClusterPlane> {
  const started = Date.now();
  const loaded = await loadKubeconfig({ path: kubeconfig });
  try {
    const config = await readConfig([kubeconfig], true, "KUBECONFIG");
    const cluster = config.clusters.get(loaded.cluster);
    let caPem = "";
    if (cluster?.certificateAuthorityData) {
      caPem = new TextDecoder().decode(
        Uint8Array.from(
          atob(cluster.certificateAuthorityData),
          (c) => c.charCodeAt(0),
        ),
      );
    } else if (cluster?.certificateAuthority) {
      caPem = await Deno.readTextFile(cluster.certificateAuthority);
    }
    const version = await loaded.client.request<{ gitVersion: string }>(
      "GET",
      "/version",
    );
    return {
      ready: {
        server: loaded.server,
        kubeconfig,
        token: "",
        ca: caPem,
        etcd: "",
        dir: "",
        auditLog: "",
        version: version.gitVersion,
        startupMillis: Date.now() - started,
      },
      caPem,
      admin: loaded.client,
      stop: () => loaded[Symbol.dispose](),
    };
  } catch (error) {
    loaded[Symbol.dispose]();
    throw error;
  }
}
