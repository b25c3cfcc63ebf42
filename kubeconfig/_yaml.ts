// The YAML parser. `npm:yaml` reads process.env.LOG_TOKENS and LOG_STREAM on
// every parse, which under Deno needs --allow-env for both; js-yaml reads no
// environment.
import { load } from "js-yaml";

/** Parses one YAML document (JSON is YAML too). */
export function parseYaml(text: string, filename: string): unknown {
  return load(text, { filename });
}
