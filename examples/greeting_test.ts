import { Client } from "../apiclient/mod.ts";
import { FakeApiServer } from "../testing/mod.ts";
import { GREETING } from "./greeting.ts";
import { greetingRuleAnswers } from "./greeting_rule_test_util.ts";

Deno.test("the fake enforces the Greeting's CEL rule as kube-apiserver does", async () => {
  await using server = new FakeApiServer();
  const admin = new Client(server.url, { fetch: server.fetch });
  await admin.create(
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    GREETING.crd(),
  );
  await greetingRuleAnswers(admin, "default");
});
