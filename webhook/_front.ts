// The pair type the certificate reader returns; the listening side is the
// shared bounded server in `_internal/_server.ts`.

export type { KeyPair } from "../_internal/_server.ts";
