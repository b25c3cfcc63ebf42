// The Greeting's CEL rule on a real kube-apiserver: the answers the fake
// gives in examples/greeting_test.ts (one shared expectation).
import { GREETING } from "../../examples/greeting.ts";
import { greetingPath } from "../../examples/samples.ts";
import { greetingRuleAnswers } from "../../examples/greeting_rule_test_util.ts";
import { eventually } from "./_eventually.ts";
import { suite } from "./_plane.ts";

const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

suite("validation rules: the Greeting's CEL rule", [
  [
    "the API server refuses a farewell in the words the fake uses",
    async ({ plane, namespace }) => {
      const admin = plane.client();
      await admin.create(CRD_PATH, GREETING.crd());
      // Established, and served: a list answers once the resource is up.
      await eventually("the Greetings to be served", async () => {
        await admin.get(greetingPath(namespace));
        return true;
      });
      await greetingRuleAnswers(admin, namespace);
    },
  ],
], { timeout: 120_000 });
