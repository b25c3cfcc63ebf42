// A kubeconfig's URLs as error text and as input: a password that holds a
// reserved character is still hidden when the URL does not parse, and a
// server of 200,000 trailing slashes is read in linear time.
import assert from "node:assert/strict";
import { KubeconfigError, loadKubeconfig } from "./mod.ts";
import { kubeconfig, tempDir } from "./testdata/helpers.ts";

async function refusal(text: string): Promise<KubeconfigError> {
  await using dir = await tempDir();
  const path = await dir.write("config", text);
  return await loadKubeconfig({ path }).then(
    () => assert.fail("the kubeconfig was accepted"),
    (e: unknown) => {
      assert.ok(e instanceof KubeconfigError, String(e));
      return e;
    },
  );
}

// Each makes the URL unparsable (the authority ends early, so the port is
// not a number) and would have shown the password.
const PASSWORDS = ["hu/nter2", "hu?nter2", "hu#nter2", "hu/n@ter2"];

Deno.test("a proxy-url whose password holds /, ?, # or @ is shown without it", async () => {
  for (const password of PASSWORDS) {
    for (const user of ["user", "us@er"]) {
      const proxy = `http://${user}:${password}@proxy:3128`;
      const error = await refusal(
        kubeconfig("http://127.0.0.1:1", { token: "t" }, {
          "proxy-url": proxy,
        }),
      );
      assert.ok(
        !error.message.includes("nter2") && !error.message.includes(user),
        error.message,
      );
      assert.match(
        error.message,
        /proxy-url http:\/\/\*\*\*@proxy:3128 is not a URL/,
      );
    }
  }
});

Deno.test("a server URL whose password holds /, ? or # is shown without it", async () => {
  for (const password of PASSWORDS) {
    const error = await refusal(
      kubeconfig(`https://user:${password}@api:6443`, { token: "t" }),
    );
    assert.ok(!error.message.includes("nter2"), error.message);
    assert.match(
      error.message,
      /server https:\/\/\*\*\*@api:6443 is not a URL/,
    );
  }
});

Deno.test("a server of 200k slashes before its end is read in linear time, and trailing slashes go", async () => {
  await using dir = await tempDir();
  const hostile = "https://h" + "/".repeat(200_000) + "x";
  for (
    const [server, expected] of [
      [hostile, hostile],
      ["https://h/api///", "https://h/api"],
    ]
  ) {
    const path = await dir.write("config", kubeconfig(server!, { token: "t" }));
    const started = Date.now();
    using loaded = await loadKubeconfig({ path });
    // Linear: a few ms; the regular expression before took over 10 s.
    assert.ok(Date.now() - started < 2000);
    assert.equal(loaded.server, expected);
  }
});
