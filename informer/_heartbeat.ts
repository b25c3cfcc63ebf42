// The heartbeat of a watch: the API server's watch cache sends a BOOKMARK
// about once a minute on every watch that allows bookmarks. Once a server is
// seen to do so, a watch silent for a few of those periods is presumed dead
// (a half-open connection sends nothing and ends nothing) and is abandoned,
// long before its own timeout would end it.
import { WatchIdleError } from "../apiclient/errors.ts";
import type { KubeObject, WatchEvent } from "../apiclient/types.ts";

/**
 * Default silence, in milliseconds, after which a watch of a server seen to
 * send periodic bookmarks is presumed dead: two and a half bookmark periods
 * of the API server's watch cache (one a minute).
 */
export const DEFAULT_HEARTBEAT_TIMEOUT = 150_000;
/** The shortest heartbeat timeout an option may set. */
export const MIN_HEARTBEAT_TIMEOUT = 1_000;
/**
 * A bookmark that arrives this long or longer before the watch's own timeout
 * is a periodic one; the server also sends one 2 s before the timeout,
 * which says nothing of a heartbeat.
 */
export const DEADLINE_BOOKMARK_WINDOW = 10_000;
/**
 * Watches abandoned in a row for silence, with no periodic bookmark seen in
 * between, after which the server is no longer trusted to send them (it may
 * have stopped) and watches get their long limit again until one arrives.
 */
export const ABANDONED_BEFORE_DISTRUST = 3;

/** The heartbeat timeout an option asks for: 0 for none, else bounded. */
export function heartbeatTimeout(
  option: number | undefined,
  longest: number,
): number {
  if (option === undefined || Number.isNaN(option)) {
    return Math.min(DEFAULT_HEARTBEAT_TIMEOUT, longest);
  }
  if (option <= 0) return 0;
  return Math.min(Math.max(MIN_HEARTBEAT_TIMEOUT, option), longest);
}

/**
 * What one reflector knows of its server's bookmarks, and the guard of each
 * watch it opens.
 */
export class Heartbeat {
  /** Milliseconds of silence that end a watch; 0 turns the guard off. */
  readonly timeout: number;
  /** Whether this server was seen sending periodic bookmarks. */
  #seen = false;
  /** Watches abandoned since the last periodic bookmark. */
  #abandoned = 0;

  constructor(timeout: number) {
    this.timeout = timeout;
  }

  /** Whether watches are held to the heartbeat timeout now. */
  get armed(): boolean {
    return this.#seen && this.timeout > 0;
  }

  /**
   * Guards one watch's batches: notes its periodic bookmarks, and, while the
   * server is trusted to send them, ends a wait for the next batch that
   * lasts `timeout` ms with a {@linkcode WatchIdleError} and cancels the
   * stream. Time the consumer spends between batches does not count.
   *
   * @param batches The watch's batches.
   * @param path The watch's path, for the error.
   * @param deadline When the server ends the watch (its `timeoutSeconds`).
   * @param cancel Ends the stream.
   */
  guard<T extends KubeObject>(
    batches: AsyncIterator<WatchEvent<T>[]>,
    path: string,
    deadline: number,
    cancel: (reason: unknown) => Promise<void>,
  ): AsyncIterator<WatchEvent<T>[]> {
    const note = (read: IteratorResult<WatchEvent<T>[]>): void => {
      if (read.done) return;
      for (const event of read.value) {
        if (event.type !== "BOOKMARK") continue;
        const annotations = event.object?.metadata?.annotations;
        if (annotations?.["k8s.io/initial-events-end"] === "true") continue;
        if (Date.now() <= deadline - DEADLINE_BOOKMARK_WINDOW) {
          this.#seen = true;
          this.#abandoned = 0;
        }
      }
    };
    return {
      next: async () => {
        if (!this.armed) {
          const read = await batches.next();
          note(read);
          return read;
        }
        const limit = this.timeout;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const silent = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            if (++this.#abandoned >= ABANDONED_BEFORE_DISTRUST) {
              this.#seen = false;
              this.#abandoned = 0;
            }
            // The reason tells the client its connection is presumed dead.
            const error = new WatchIdleError(path, limit);
            cancel(error).catch(() => {});
            reject(error);
          }, limit);
        });
        const pending = batches.next();
        try {
          const read = await Promise.race([pending, silent]);
          note(read);
          return read;
        } catch (error) {
          // The abandoned read ends with the cancel; its outcome is moot.
          pending.catch(() => {});
          throw error;
        } finally {
          clearTimeout(timer);
        }
      },
    };
  }
}
