// The fidelity suite's checks (kubectl and the @kubernetes/client-node
// informer) against a real kube-apiserver, so that what they assert of the
// fake is known to hold of the real thing. One control plane for the file,
// one step per check, each in a namespace of its own; assertions on the
// fake's request log are skipped here (see testing/fidelity/_checks.ts).
import { CHECKS } from "../fidelity/_checks.ts";
import { realTarget } from "../fidelity/_target.ts";
import { unmetTools } from "../fidelity/_tools.ts";
import { type Step, suite } from "./_plane.ts";

suite(
  "fidelity",
  CHECKS.map(([name, fn]): Step => [name, async ({ plane, namespace }) => {
    await using target = await realTarget(plane, namespace);
    await fn(target);
  }, {
    // A check that waits on the garbage collector cannot pass on envtest.
    controllers: /garbage collector/.test(name),
  }]),
  { unmet: await unmetTools("deno task test:unit --filter fidelity") },
);
