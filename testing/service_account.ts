/**
 * A fake ServiceAccount directory, laid out as the kubelet mounts it at
 * `/var/run/secrets/kubernetes.io/serviceaccount`.
 *
 * @module
 */

import { testCerts } from "./certs.ts";

/** The files of a ServiceAccount directory. */
export type ServiceAccountFile = "token" | "ca.crt" | "namespace";

/** Options for {@linkcode fakeServiceAccount}. */
export interface FakeServiceAccountOptions {
  /** The bearer token in `token`. Default `"test-token"`. */
  token?: string | undefined;
  /** The cluster CA (PEM) in `ca.crt`. Default `testCerts.caCert`. */
  ca?: string | undefined;
  /** The pod's namespace in `namespace`. Default `"default"`. */
  namespace?: string | undefined;
  /**
   * The directory to make the temp dir in. Default: the system temp dir
   * (`TMPDIR`).
   */
  dir?: string | undefined;
}

/**
 * A ServiceAccount directory in a temp dir, made by
 * {@linkcode fakeServiceAccount}. Disposing it removes the directory.
 */
export interface FakeServiceAccount extends AsyncDisposable {
  /** The directory holding `token`, `ca.crt` and `namespace`. */
  readonly dir: string;
  /**
   * Replaces the token the way the kubelet does: the new file is written
   * whole, then swapped in, so a reader never sees a partial token.
   */
  rotate(token: string): Promise<void>;
  /** Deletes one of the files, for tests of a missing file. */
  remove(name: ServiceAccountFile): Promise<void>;
}

class FakeServiceAccountImpl implements FakeServiceAccount {
  readonly dir: string;
  #rotations = 0;

  constructor(dir: string) {
    this.dir = dir;
  }

  async rotate(token: string): Promise<void> {
    // A rename within one directory is atomic, like the kubelet's symlink swap.
    const temp = `${this.dir}/..token.${++this.#rotations}.tmp`;
    await Deno.writeTextFile(temp, token);
    await Deno.rename(temp, `${this.dir}/token`);
  }

  async remove(name: ServiceAccountFile): Promise<void> {
    await Deno.remove(`${this.dir}/${name}`);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Deno.remove(this.dir, { recursive: true }).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
}

/**
 * Makes a ServiceAccount directory (`token`, `ca.crt`, `namespace`) in a new
 * temp dir. Needs read and write permission for the temp dir: run tests with
 * `TMPDIR=.tmp` and `--allow-read=.tmp --allow-write=.tmp`, or pass `dir`.
 *
 * @example A token that rotates
 * ```ts
 * import assert from "node:assert/strict";
 * import { fakeServiceAccount } from "@liken/kubernetes/testing";
 *
 * await using sa = await fakeServiceAccount({ token: "first", namespace: "ops" });
 * assert.equal(await Deno.readTextFile(`${sa.dir}/token`), "first");
 * assert.equal(await Deno.readTextFile(`${sa.dir}/namespace`), "ops");
 * await sa.rotate("second");
 * assert.equal(await Deno.readTextFile(`${sa.dir}/token`), "second");
 * ```
 *
 * @param options The file contents and where to make the directory.
 * @returns The directory, removed when disposed.
 */
export async function fakeServiceAccount(
  options: FakeServiceAccountOptions = {},
): Promise<FakeServiceAccount> {
  const dir = await Deno.makeTempDir({
    prefix: "serviceaccount-",
    ...(options.dir === undefined ? {} : { dir: options.dir }),
  });
  const sa = new FakeServiceAccountImpl(dir);
  try {
    await Deno.writeTextFile(`${dir}/token`, options.token ?? "test-token");
    await Deno.writeTextFile(`${dir}/ca.crt`, options.ca ?? testCerts.caCert);
    await Deno.writeTextFile(
      `${dir}/namespace`,
      options.namespace ?? "default",
    );
  } catch (err) {
    await sa[Symbol.asyncDispose]();
    throw err;
  }
  return sa;
}
