// The line counts of tools/compare/count.sh: what it takes for code, and
// the CronJob example's budget (its definition and controller within 300
// code lines, against the kubebuilder tutorial's 506). The gate runs it as
// its own step (`deno task counts`), since running the script needs
// `--allow-run=bash`, which the unit suite does not grant.
import assert from "node:assert/strict";

const SCRIPT = new URL("./count.sh", import.meta.url).pathname;

/** `[total, non-blank, code]` of the files, as the script counts them. */
async function count(...files: string[]): Promise<number[]> {
  const { code, stdout, stderr } = await new Deno.Command("bash", {
    args: [SCRIPT, ...files],
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  assert.equal(code, 0, decoder.decode(stderr));
  return decoder.decode(stdout).trim().split(" | ").map(Number);
}

Deno.test("count.sh: block comments out, Go markers in, docs-gen lines out", async () => {
  const go = `/*
Copyright: a block of prose

that spans blank lines.
*/
// +kubebuilder:docs-gen:collapse=Apache License

package v1

// A comment.
// +kubebuilder:validation:Minimum=0
// +optional
type Spec struct {
	/* a block on one line */
	Limit *int32 \`json:"limit"\` /* a block after code
	that goes on */
	/*
		### 2: prose inside a function
	*/
	Name string /* inline */ \`json:"name"\`
}
`;
  const file = await Deno.makeTempFile({ suffix: ".go" });
  try {
    await Deno.writeTextFile(file, go);
    // 21 lines, 3 blank; code: package, 2 markers, type, Limit, Name, }.
    assert.deepEqual(await count(file), [21, 18, 7]);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("the CronJob example's definition and controller fit in 300 code lines", async () => {
  const here = new URL("../../examples/cronjob/", import.meta.url).pathname;
  const [, , code] = await count(`${here}cronjob.ts`, `${here}controller.ts`);
  assert.ok(code! > 0 && code! <= 300, `${code} code lines`);
});
