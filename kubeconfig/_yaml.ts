// The YAML parser. `npm:yaml` reads process.env.LOG_TOKENS and LOG_STREAM on
// every parse, which under Deno needs --allow-env for both; js-yaml reads no
// environment. TODO(lead): map "js-yaml" in deno.json and import it by name.
// deno-lint-ignore no-import-prefix
import { load } from "npm:js-yaml@5.5.0";

/** Parses one YAML document (JSON is YAML too). */
export function parseYaml(text: string, filename: string): unknown {
  return load(text, { filename });
}
