/**
 * The fidelity suite: real clients nobody here wrote (kubectl, and the
 * informer of `@kubernetes/client-node` on Node) against the fake API server
 * served over HTTPS on 127.0.0.1. A missing tool fails the suite with the
 * command that installs it. The same checks (`_checks.ts`) run against a
 * real kube-apiserver in `../real/fidelity_test.ts`.
 *
 * Permissions: --allow-run=kubectl,node --allow-net=127.0.0.1
 * --allow-read=.tmp --allow-write=.tmp, with TMPDIR=.tmp.
 *
 * @module
 */

import { CHECKS } from "./_checks.ts";
import { fakeTarget } from "./_target.ts";

const TIMEOUT = 60_000;

for (const [name, fn] of CHECKS) {
  Deno.test({
    name: `fidelity: ${name}`,
    timeout: TIMEOUT,
    async fn(): Promise<void> {
      await using target = await fakeTarget();
      await fn(target);
    },
  });
}
