/**
 * {@linkcode PathClient}: the path-based calls a handle of a collection
 * sends through, as `Client` offers them.
 *
 * @module
 */
import type {
  ApplyOptions,
  DeleteOptions,
  GetOptions,
  PatchOptions,
  WatchOptions,
  WriteOptions,
} from "./options.ts";
import type { Memo } from "./resource.ts";
import type { KubeObject, Status } from "./types.ts";
import type { WatchStream } from "./watch.ts";

/**
 * The path-based calls a {@linkcode ResourceClient} sends through: those of
 * a `Client` (which implements this), or of a wrapper around one.
 *
 * @example
 * ```ts
 * import { Client, type PathClient } from "@liken/kubernetes/apiclient";
 *
 * const client: PathClient = new Client("http://127.0.0.1:9");
 * void client;
 * ```
 */
export interface PathClient {
  /**
   * Where the resource-scoped handles note their writes (see
   * `Client.withMemo`); absent, nowhere.
   */
  readonly memo?: Memo | undefined;
  /**
   * Reads one object or a list.
   *
   * @param path The API path, with its query.
   * @param options The `Accept` header and a signal.
   */
  get<T>(path: string, options?: GetOptions): Promise<T>;
  /**
   * Creates an object (POST).
   *
   * @param collectionPath The collection's API path.
   * @param object The object.
   * @param options The write's options.
   */
  create<T extends KubeObject>(
    collectionPath: string,
    object: T,
    options?: WriteOptions,
  ): Promise<T & KubeObject>;
  /**
   * Replaces an object (PUT).
   *
   * @param path The object's API path.
   * @param object The object.
   * @param options The write's options.
   */
  replace<T extends KubeObject>(
    path: string,
    object: T,
    options?: WriteOptions,
  ): Promise<T & KubeObject>;
  /**
   * Patches an object.
   *
   * @param path The object's API path.
   * @param patch The patch document.
   * @param options The dialect and the write's options.
   */
  patch<T>(path: string, patch: unknown, options: PatchOptions): Promise<T>;
  /**
   * Server-side apply.
   *
   * @param path The object's API path.
   * @param object The applied configuration.
   * @param options The field manager and the write's options.
   */
  apply<T>(path: string, object: unknown, options: ApplyOptions): Promise<T>;
  /**
   * Deletes an object.
   *
   * @param path The object's API path.
   * @param options The delete's options.
   */
  delete<T = Status>(path: string, options?: DeleteOptions): Promise<T>;
  /**
   * Opens a watch.
   *
   * @param path The collection's API path with the watch query.
   * @param options The stream's options.
   */
  watch<T extends KubeObject = KubeObject>(
    path: string,
    options?: WatchOptions,
  ): Promise<WatchStream<T>>;
}
