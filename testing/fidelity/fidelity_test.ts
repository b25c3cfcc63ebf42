/**
 * The fidelity suite: real clients nobody here wrote (kubectl, and the
 * informer of `@kubernetes/client-node` on Node) against the fake API server
 * served over HTTPS on 127.0.0.1. Without kubectl, Node or the client's
 * npm package the suite is listed as not run, with the command that
 * installs what is missing (`tools/needs.ts`; in CI mode it fails instead).
 * The same checks (`_checks.ts`) run against a real kube-apiserver in
 * `../real/fidelity_test.ts`.
 *
 * Permissions: --allow-run=kubectl,node --allow-net=127.0.0.1
 * --allow-read=.tmp --allow-write=.tmp, with TMPDIR=.tmp.
 *
 * @module
 */

import { CHECKS } from "./_checks.ts";
import { fakeTarget } from "./_target.ts";
import { unmetTools } from "./_tools.ts";
import { runnable } from "../../tools/needs.ts";

const TIMEOUT = 60_000;
const SUITE = `fidelity (${CHECKS.length} checks of kubectl and client-node)`;
const HOW = "deno task test:unit --filter fidelity";

for (const [name, fn] of runnable(SUITE, await unmetTools(HOW)) ? CHECKS : []) {
  Deno.test({
    name: `fidelity: ${name}`,
    timeout: TIMEOUT,
    async fn(): Promise<void> {
      await using target = await fakeTarget();
      await fn(target);
    },
  });
}
