/**
 * A client from a kubeconfig, for running an operator from a laptop against
 * a real cluster, and {@linkcode autoClient}, which picks the in-cluster
 * client in a pod and the kubeconfig elsewhere.
 *
 * This is a separate export so that in-cluster operators, which import
 * `apiclient` alone, never load the YAML parser (`npm:js-yaml`).
 *
 * What Deno cannot do, and what this module does instead:
 * - `insecure-skip-tls-verify`: `Deno.createHttpClient` has no option to skip
 *   verification; only the process flag `--unsafely-ignore-certificate-errors`
 *   can. Such a cluster is refused unless the caller passes
 *   `allowInsecureSkipTlsVerify: true` (meaning: Deno runs with that flag).
 * - `tls-server-name`: `fetch` checks the certificate against the URL's host
 *   only, so a different name is refused with an error.
 * - `certificate-authority(-data)` adds the CA to Deno's default roots rather
 *   than replacing them (no setting removes them).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadKubeconfig } from "@liken/kubernetes/kubeconfig";
 *
 * await Deno.mkdir(".tmp", { recursive: true });
 * const path = await Deno.makeTempFile({ dir: ".tmp", suffix: ".yaml" });
 * await Deno.writeTextFile(path, `
 * current-context: dev
 * clusters:
 * - name: local
 *   cluster:
 *     server: http://127.0.0.1:8080
 * contexts:
 * - name: dev
 *   context:
 *     cluster: local
 * `);
 * using config = await loadKubeconfig({ path });
 * assert.equal(config.namespace, "default");
 * assert.equal(config.client.server, "http://127.0.0.1:8080");
 * await Deno.remove(path);
 * ```
 *
 * @module
 */
export * from "./auto.ts";
export * from "./errors.ts";
export * from "./load.ts";
