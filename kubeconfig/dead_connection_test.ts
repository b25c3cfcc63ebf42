// A kubeconfig's client replaces its connection pool when a request times
// out on a connection black-holed at the TCP level (over HTTP/2 the pool
// would send every later request down it): the loader gives the client a
// function that makes a Deno.HttpClient with the cluster's CA.
import assert from "node:assert/strict";
import { RequestTimeoutError } from "../apiclient/mod.ts";
import { loadKubeconfig } from "./mod.ts";
import { base64, kubeconfig, tempDir } from "./testdata/helpers.ts";
import { FakeApiServer } from "../testing/fake_server.ts";
import { FaultProxy } from "../testing/real/_fault_proxy.ts";

const CM = "/api/v1/namespaces/default/configmaps";

Deno.test({
  name:
    "dead connection: a kubeconfig's client dials a new connection after a request timeout",
  timeout: 20_000,
  async fn(): Promise<void> {
    await using server = new FakeApiServer();
    await using served = await server.serve({ tls: true });
    await using proxy = FaultProxy.start(served.url);
    await using dir = await tempDir();
    const path = await dir.write(
      "config",
      kubeconfig(proxy.url, { token: "t" }, {
        "certificate-authority-data": base64(served.caCert!),
      }),
    );
    using config = await loadKubeconfig({ path, timeout: 1_000 });
    const { client } = config;
    await client.get(CM);
    for (const id of proxy.connections()) {
      proxy.set({ stalled: true }, { connection: id });
    }
    await assert.rejects(client.get(CM), RequestTimeoutError);
    await client.get(CM);
    assert.equal(proxy.counts.accepted, 2);
  },
});
