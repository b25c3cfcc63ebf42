import assert from "node:assert/strict";
import { testCerts } from "./certs.ts";
import { fakeServiceAccount } from "./service_account.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

Deno.test("fakeServiceAccount writes the default token, CA and namespace", async () => {
  await using sa = await fakeServiceAccount();
  assert.equal(await Deno.readTextFile(`${sa.dir}/token`), "test-token");
  assert.equal(await Deno.readTextFile(`${sa.dir}/ca.crt`), testCerts.caCert);
  assert.equal(await Deno.readTextFile(`${sa.dir}/namespace`), "default");
  const names: string[] = [];
  for await (const entry of Deno.readDir(sa.dir)) names.push(entry.name);
  assert.deepEqual(names.sort(), ["ca.crt", "namespace", "token"]);
});

Deno.test("fakeServiceAccount writes the given token, CA and namespace", async () => {
  await using sa = await fakeServiceAccount({
    token: "abc.def",
    ca: testCerts.otherCaCert,
    namespace: "operators",
  });
  assert.equal(await Deno.readTextFile(`${sa.dir}/token`), "abc.def");
  assert.equal(
    await Deno.readTextFile(`${sa.dir}/ca.crt`),
    testCerts.otherCaCert,
  );
  assert.equal(await Deno.readTextFile(`${sa.dir}/namespace`), "operators");
});

Deno.test("fakeServiceAccount makes a fresh directory each time, under dir", async () => {
  const parent = await Deno.makeTempDir({ prefix: "sa-parent-" });
  try {
    await using a = await fakeServiceAccount({ dir: parent });
    await using b = await fakeServiceAccount({ dir: parent });
    assert.notEqual(a.dir, b.dir);
    assert.ok(a.dir.startsWith(parent), `${a.dir} is not under ${parent}`);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("rotate replaces the token and leaves no temp file", async () => {
  await using sa = await fakeServiceAccount({ token: "one" });
  await sa.rotate("two");
  assert.equal(await Deno.readTextFile(`${sa.dir}/token`), "two");
  await sa.rotate("three");
  assert.equal(await Deno.readTextFile(`${sa.dir}/token`), "three");
  const names: string[] = [];
  for await (const entry of Deno.readDir(sa.dir)) names.push(entry.name);
  assert.deepEqual(names.sort(), ["ca.crt", "namespace", "token"]);
});

Deno.test("rotate is atomic: a reader sees the old or the new token, whole", async () => {
  const oldToken = "o".repeat(64 * 1024);
  const newToken = "n".repeat(64 * 1024);
  await using sa = await fakeServiceAccount({ token: oldToken });
  let rotating = true;
  const seen = new Set<string>();
  const reader = (async () => {
    while (rotating) {
      const token = await Deno.readTextFile(`${sa.dir}/token`);
      seen.add(
        token === oldToken ? "old" : token === newToken ? "new" : "torn",
      );
    }
  })();
  for (let i = 0; i < 50; i++) await sa.rotate(i % 2 ? oldToken : newToken);
  rotating = false;
  await reader;
  assert.equal(seen.has("torn"), false, "a reader saw a partial token");
  assert.ok(seen.has("old") || seen.has("new"));
});

Deno.test("remove deletes one file and keeps the others", async () => {
  await using sa = await fakeServiceAccount();
  await sa.remove("token");
  await assert.rejects(
    () => Deno.readTextFile(`${sa.dir}/token`),
    Deno.errors.NotFound,
  );
  assert.equal(await Deno.readTextFile(`${sa.dir}/namespace`), "default");
  await sa.remove("ca.crt");
  assert.equal(await exists(`${sa.dir}/ca.crt`), false);
  await sa.rotate("back"); // a rotation brings the token back
  assert.equal(await Deno.readTextFile(`${sa.dir}/token`), "back");
});

Deno.test("disposing removes the directory, and a second dispose is harmless", async () => {
  const sa = await fakeServiceAccount();
  assert.equal(await exists(sa.dir), true);
  await sa[Symbol.asyncDispose]();
  assert.equal(await exists(sa.dir), false);
  await sa[Symbol.asyncDispose]();
});
