// The reflector: reads a collection, watches it from the version that read
// answered, resumes, reads again after a 410, backs off while the server
// fails, and never gives up until its signal ends. One task does all of it,
// and hands each change to the delivery (`_delivery.ts`) in order.
import { parseLine, parseOptions, parsePage, storesText } from "./_bytes.ts";
import type { Client } from "../apiclient/client.ts";
import { ApiError } from "../apiclient/errors.ts";
import type { ResourceClient } from "../apiclient/handle.ts";
import type { ResourceWatchOptions } from "../apiclient/options.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { sleep } from "../_internal/sleep.ts";
import { Backoff } from "./_backoff.ts";
import {
  eventError,
  isExpired,
  isForbidden,
  isTooLargeVersion,
  isTransient,
  retryAfterMs,
  statusOf,
} from "./_errors.ts";
import { cursor, type Open } from "./_cursor.ts";
import {
  Delivery,
  type DeliveryOptions,
  type Read,
  versionOf,
} from "./_delivery.ts";
import {
  CollectionError,
  EventHandlerError,
  ListError,
  WatchError,
} from "./errors.ts";
import { Heartbeat, heartbeatTimeout } from "./_heartbeat.ts";
import {
  type Listed,
  METADATA_ACCEPT,
  METADATA_LIST_ACCEPT,
  readPages,
} from "./_pages.ts";
import {
  DEFAULT_ABSENT_RECHECK,
  IDLE_MARGIN,
  INITIAL_EVENTS_END,
  MIN_WATCH_TIMEOUT_SECONDS,
  RELIST_AFTER_FAILURES,
  SHORT_WATCH,
} from "./_timings.ts";
import type { MemoryStore } from "./_store.ts";
import type { CollectionOptions, Source } from "./types.ts";

/** Which request failed: a streaming list, a paginated list, or a watch. */
type Failed = "stream" | "list" | "watch";

type Step<T extends KubeObject> =
  | { next: "read"; wait: number }
  | { next: "watch"; wait: number; open?: Open<T> }
  | { next: "quiet" };

/** One collection's reflector: the loop of reads and watches. */
export class Reflector<T extends KubeObject> {
  readonly store: MemoryStore<T>;
  /** The collection's handle: it builds every list and watch request. */
  #handle: ResourceClient<T>;
  #path: string;
  #source: Source;
  #options: CollectionOptions<T>;
  #delivery: Delivery<T>;
  #onError: (error: unknown) => void;
  #signal: AbortSignal;
  #backoff: Backoff;
  #heartbeat: Heartbeat;

  /** The version the next watch or list starts from. */
  #lastVersion = "";
  /** The last version failed with 410 or "too large": read the newest. */
  #versionUnavailable = false;
  /** `false` once the server refused a streaming list as unsupported. */
  #streaming = true;
  #firstRead = false;
  /** A watch was refused with 401 or 403 (any failure, with the option). */
  #unready = false;
  #failed = false;
  #accepted = 0;
  /** Failures since the store was last known current; 0 when it is. */
  #failures = 0;
  /** Watches in a row that failed with a bad answer. */
  #badAnswers = 0;
  /** Whether the store keeps text: reads answer it scanned, not parsed. */
  #text: boolean;
  /** When the watch now open was opened. */
  #openSince: number | undefined;

  constructor(
    client: Client,
    source: Source,
    options:
      & CollectionOptions<T>
      & Pick<DeliveryOptions<T>, "store" | "scope" | "freeze">
      & {
        signal: AbortSignal;
        onError: (error: unknown) => void;
      },
  ) {
    this.#handle = client.resource<T>(source);
    this.#source = source;
    this.#path = this.#handle.path;
    this.#options = options;
    this.#onError = options.onError;
    this.#signal = options.signal;
    this.#backoff = new Backoff();
    this.#heartbeat = new Heartbeat(
      heartbeatTimeout(
        options.heartbeatTimeout,
        MIN_WATCH_TIMEOUT_SECONDS * 1000,
      ),
    );
    this.#delivery = new Delivery<T>({ ...options, source });
    this.#text = storesText(options);
    this.store = this.#delivery.store;
  }

  /**
   * The first complete read is in (client-go's HasSynced), and no watch since
   * the last one accepted was refused with 401 or 403 (see `Collection`).
   */
  synced(): boolean {
    return this.#firstRead && !this.#unready;
  }

  /**
   * Whether the store is being kept current: synced, and no list or watch
   * failed since the last event, read, or watch open for `SHORT_WATCH`.
   */
  current(): boolean {
    if (!this.synced()) return false;
    if (this.#failures === 0) return true;
    const since = this.#openSince;
    return since !== undefined && Date.now() - since >= SHORT_WATCH;
  }

  /** Whether the first read is in the store and handled. */
  get firstRead(): boolean {
    return this.#firstRead;
  }

  /** Runs until the signal aborts; resolves after the last handler returned. */
  async run(): Promise<void> {
    const signal = this.#signal;
    let step: Step<T> = { next: "read", wait: 0 };
    try {
      while (!signal.aborted) {
        if (step.next !== "quiet" && step.wait > 0) {
          await sleep(step.wait, signal);
          if (signal.aborted) break;
        }
        try {
          if (step.next === "read") step = await this.#read();
          else if (step.next === "quiet") step = await this.#quiet();
          else step = await this.#watch(step.open);
        } catch (error) {
          // Nothing above should throw; if something does, start over after
          // a wait rather than stop.
          if (signal.aborted) break;
          this.#onError(new CollectionError(this.#source, { cause: error }));
          step = { next: "read", wait: this.#wait(error) };
        }
      }
    } finally {
      // A streaming list's stream not yet taken over by a watch.
      if (step.next === "watch") await step.open?.cancel().catch(() => {});
    }
  }

  #wait(error: unknown): number {
    return Math.max(this.#backoff.next(), retryAfterMs(error));
  }

  // ------------------------------------------------------------ watch state

  #accept(counts: boolean): void {
    this.#unready = false;
    if (counts) this.#openSince = Date.now();
    else this.#failures = 0;
    if (counts) {
      this.#accepted++;
      if (this.#accepted > 1) {
        this.#call(this.#options.reopened, "reopened");
      }
    }
    if (this.#failed) {
      this.#failed = false;
      this.#call(this.#options.recovered, "recovered");
    }
  }

  /** The store is current again: an event arrived, or a read is in. */
  #progress(): void {
    this.#failures = 0;
    this.#badAnswers = 0;
  }

  /** A failure to report: every failed list and watch is told. */
  #failure(read: Failed, error: unknown): CollectionError {
    this.#failures++;
    const source = this.#source;
    const failure = read === "watch"
      ? new WatchError(source, { cause: error })
      : new ListError(source, { cause: error, streaming: read === "stream" });
    this.#onError(failure);
    return failure;
  }

  /** A list or a watch was refused. */
  #refused(read: Failed, error: unknown): void {
    this.#failure(read, error);
    // Before the first complete read there is no gap to recover from.
    if (this.#firstRead) this.#failed = true;
    if (this.#options.unreadyOnWatchError || isForbidden(error)) {
      this.#unready = true;
    }
  }

  /** A watch (or a streaming list) that was open ended with a failure. */
  #broke(read: Failed, error: unknown): void {
    this.#failure(read, error);
    if (this.#firstRead) this.#failed = true;
    if (this.#options.unreadyOnWatchError) this.#unready = true;
  }

  #call(callback: (() => void) | undefined, call: string): void {
    if (callback === undefined) return;
    try {
      callback();
    } catch (error) {
      this.#onError(
        new EventHandlerError(this.#source, { call, cause: error }),
      );
    }
  }

  // ------------------------------------------------------------------- read

  async #read(): Promise<Step<T>> {
    if (this.#streaming) {
      const streamed = await this.#streamList();
      if (streamed !== undefined) return streamed;
    }
    return await this.#list();
  }

  /** The timeout of one watch: random in [300, 600) seconds. */
  #timeout(): number {
    return Math.floor(MIN_WATCH_TIMEOUT_SECONDS * (1 + Math.random()));
  }

  async #open(
    params: Pick<
      ResourceWatchOptions,
      "sendInitialEvents" | "resourceVersionMatch" | "resourceVersion"
    >,
    timeout: number,
  ): Promise<Open<T>> {
    const opened = Date.now();
    const { labelSelector, fieldSelector } = this.#source;
    const stream = await this.#handle.watch({
      ...params,
      allowWatchBookmarks: true,
      timeoutSeconds: timeout,
      ...(labelSelector ? { labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
      signal: this.#signal,
      idleTimeout: timeout * 1000 + IDLE_MARGIN,
      ...(this.#options.metadataOnly ? { accept: METADATA_ACCEPT } : {}),
      ...(this.#text ? parseOptions(parseLine) : {}),
    });
    // The stream's cancel() also ends an iteration paused at an event, so
    // its listener and idle timer go with it.
    const cancel = (reason?: unknown): Promise<void> => stream.cancel(reason);
    return {
      events: cursor(this.#heartbeat.guard(
        stream.batches(),
        this.#path,
        opened + timeout * 1000,
        cancel,
      )),
      cancel,
    };
  }

  /**
   * A streaming list: a watch that first sends every object, then a bookmark
   * that marks the end of them. Answers undefined to fall back to a list.
   */
  async #streamList(): Promise<Step<T> | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const from = this.#versionUnavailable ? "" : this.#lastVersion;
      let open: Open<T>;
      try {
        open = await this.#open({
          sendInitialEvents: true,
          resourceVersionMatch: "NotOlderThan",
          resourceVersion: from,
        }, this.#timeout());
      } catch (error) {
        if (this.#signal.aborted) return { next: "read", wait: 0 };
        if (isExpired(error) || isTooLargeVersion(error)) {
          this.#versionUnavailable = true;
          continue;
        }
        if (this.#isAbsent(error)) return undefined;
        const status = statusOf(error);
        if (status === 400 || status === 422) {
          // A server without streaming lists refuses the parameters: lists
          // serve this collection from now on.
          this.#streaming = false;
          return undefined;
        }
        this.#refused("stream", error);
        // No answer, or a throttle: no verdict on streaming; ask again.
        if (isTransient(error) && (status === 0 || status === 429)) {
          return { next: "read", wait: this.#wait(error) };
        }
        // Any other failure (a 5xx, a 403): a list for this attempt, as
        // client-go does: progress beats a deadlock on a refusing proxy.
        return undefined;
      }
      this.#accept(true);
      // Each object is trimmed and decoded as it arrives, so the raw copies
      // (managedFields and all) never pile up for the whole read.
      const initial = this.#delivery.newRead();
      let end: string | undefined;
      let failure: unknown;
      try {
        for (;;) {
          let step = open.events.next();
          if (step instanceof Promise) step = await step;
          const { value: event, done } = step;
          if (done) break;
          if (event.type === "ERROR") {
            failure = eventError(event.object, this.#path);
            break;
          }
          const object = event.object;
          if (event.type === "BOOKMARK") {
            const annotations = object.metadata?.annotations;
            if (annotations?.[INITIAL_EVENTS_END] === "true") {
              end = versionOf(object);
              break;
            }
          } else if (event.type === "DELETED") {
            const key = this.#delivery.keyOf(object);
            if (key !== undefined) initial.remove(key);
          } else {
            initial.add(object);
          }
        }
      } catch (error) {
        failure = error;
      }
      if (this.#signal.aborted) {
        await open.cancel().catch(() => {});
        return { next: "read", wait: 0 };
      }
      if (end === undefined) {
        await open.cancel().catch(() => {});
        if (isExpired(failure) || isTooLargeVersion(failure)) {
          this.#versionUnavailable = true;
          continue;
        }
        // A stream cut before its end (a restart, a proxy timeout) says
        // nothing about streaming: ask again after a wait. Another failure
        // (an ERROR event, a bad line) is an answer: a list this attempt.
        const cut = failure === undefined ||
          (isTransient(failure) && statusOf(failure) === 0);
        this.#broke(
          "stream",
          failure ??
            new Error("The streaming list ended before its last object"),
        );
        if (cut) return { next: "read", wait: this.#wait(failure) };
        return undefined;
      }
      this.#versionUnavailable = false;
      try {
        await this.#replace(initial, end);
      } catch (error) {
        await open.cancel().catch(() => {});
        throw error;
      }
      return { next: "watch", wait: 0, open };
    }
    return undefined;
  }

  /** A paginated list, then a replace of the store. */
  async #list(): Promise<Step<T>> {
    let listed: Listed<T>;
    try {
      try {
        listed = await this.#pages(this.#versionUnavailable);
      } catch (error) {
        if (
          this.#signal.aborted || this.#versionUnavailable ||
          this.#lastVersion === "" ||
          !(isExpired(error) || isTooLargeVersion(error))
        ) throw error;
        // The version is gone or not reached yet: list the newest instead.
        this.#versionUnavailable = true;
        listed = await this.#pages(true);
      }
    } catch (error) {
      if (this.#signal.aborted) return { next: "read", wait: 0 };
      if (this.#isAbsent(error)) {
        this.#lastVersion = "";
        this.#versionUnavailable = false;
        await this.#replace(this.#delivery.newRead(), "");
        return { next: "quiet" };
      }
      this.#listFailed(error);
      return { next: "read", wait: this.#wait(error) };
    }
    if (listed.resourceVersion === "") {
      const error = new ApiError(
        `GET ${this.#path}: list answered no resourceVersion`,
        { method: "GET", path: this.#path, status: 200 },
      );
      this.#listFailed(error);
      return { next: "read", wait: this.#wait(error) };
    }
    this.#versionUnavailable = false;
    await this.#replace(listed.read, listed.resourceVersion);
    return { next: "watch", wait: 0 };
  }

  #listFailed(error: unknown): void {
    const failure = this.#failure("list", error);
    const listFailed = this.#options.listFailed;
    if (listFailed === undefined) return;
    try {
      listFailed(failure);
    } catch (thrown) {
      this.#onError(
        new EventHandlerError(this.#source, {
          call: "listFailed",
          cause: thrown,
        }),
      );
    }
  }

  #isAbsent(error: unknown): boolean {
    const absent = this.#options.absent;
    if (absent === undefined || !(error instanceof ApiError)) return false;
    try {
      return absent(error);
    } catch (thrown) {
      this.#onError(
        new EventHandlerError(this.#source, { call: "absent", cause: thrown }),
      );
      return false;
    }
  }

  #pages(newest: boolean): Promise<Listed<T>> {
    return readPages(this.#handle, this.#source, {
      from: newest || this.#lastVersion === "" ? "" : this.#lastVersion,
      signal: this.#signal,
      accept: this.#options.metadataOnly ? METADATA_LIST_ACCEPT : undefined,
      parse: this.#text ? parsePage : undefined,
      newRead: () => this.#delivery.newRead(),
    });
  }

  /**
   * An absent collection: an empty store that answers as current, asked for
   * again after the recheck. No request is sent meanwhile.
   */
  async #quiet(): Promise<Step<T>> {
    this.#accept(false);
    await sleep(
      this.#options.absentRecheck ?? DEFAULT_ABSENT_RECHECK,
      this.#signal,
    );
    return { next: "read", wait: 0 };
  }

  // ------------------------------------------------------------------ watch

  async #watch(given: Open<T> | undefined): Promise<Step<T>> {
    let open = given;
    if (open === undefined) {
      try {
        open = await this.#open(
          { resourceVersion: this.#lastVersion },
          this.#timeout(),
        );
      } catch (error) {
        if (this.#signal.aborted) return { next: "read", wait: 0 };
        if (isExpired(error)) return { next: "read", wait: this.#wait(error) };
        this.#refused("watch", error);
        // A refused connection, a 429 or a 5xx is no verdict on the
        // version: watch again from it after a wait.
        if (isTransient(error)) {
          return { next: "watch", wait: this.#wait(error) };
        }
        return { next: "read", wait: this.#wait(error) };
      }
      this.#accept(true);
    }
    const started = Date.now();
    // A streaming list's stream already delivered its initial events.
    let events = given === undefined ? 0 : 1;
    try {
      for (;;) {
        let read = open.events.next();
        if (read instanceof Promise) read = await read;
        const { value: event, done } = read;
        if (done) break;
        events++;
        const object = event.object;
        switch (event.type) {
          case "ADDED":
          case "MODIFIED": {
            const applied = this.#delivery.apply(object as T);
            if (applied !== undefined) await applied;
            break;
          }
          case "DELETED": {
            const removed = this.#delivery.remove(object as T);
            if (removed !== undefined) await removed;
            break;
          }
          case "BOOKMARK":
            break;
          case "ERROR": {
            const error = eventError(event.object, this.#path);
            if (isExpired(error)) {
              // Compacted past a watch that worked a second: read at once
              // (as kube-rs); sooner, after the backoff (a relist a second).
              const worked = Date.now() - started >= SHORT_WATCH;
              return { next: "read", wait: worked ? 0 : this.#wait(error) };
            }
            this.#broke("watch", error);
            if (isTransient(error)) {
              return { next: "watch", wait: this.#wait(error) };
            }
            return { next: "read", wait: this.#wait(error) };
          }
        }
        const version = versionOf(object as KubeObject);
        if (version !== "") this.#lastVersion = version;
        this.#progress();
        if (this.#signal.aborted) return { next: "read", wait: 0 };
      }
    } catch (error) {
      if (this.#signal.aborted) return { next: "read", wait: 0 };
      // A cut connection, an idle stream, a malformed line: resume from
      // the last version delivered. A line that fails to decode can fail
      // again: that waits first, and a few in a row read everything again.
      this.#broke("watch", error);
      if (!isTransient(error)) {
        this.#badAnswers++;
        if (this.#badAnswers >= RELIST_AFTER_FAILURES) {
          this.#badAnswers = 0;
          return { next: "read", wait: this.#wait(error) };
        }
      }
      return {
        next: "watch",
        wait: isTransient(error) && events > 0
          ? this.#spacing(started)
          : this.#wait(error),
      };
    } finally {
      this.#openSince = undefined;
      await open.cancel().catch(() => {});
    }
    const lasted = Date.now() - started;
    if (events === 0 && lasted < SHORT_WATCH) {
      return { next: "watch", wait: this.#backoff.next() };
    }
    // A healthy long watch resumes at once; a short one waits a little.
    if (lasted >= SHORT_WATCH) this.#failures = 0;
    return { next: "watch", wait: this.#spacing(started) };
  }

  /** The wait that opens watches no more often than one per `SHORT_WATCH`. */
  #spacing(started: number): number {
    return Math.max(
      0,
      Math.min(SHORT_WATCH, started + SHORT_WATCH - Date.now()),
    );
  }

  /** Replaces the store with a whole read (see `Delivery.replace`). */
  async #replace(read: Read<T>, version: string): Promise<void> {
    if (version !== "") this.#lastVersion = version;
    this.#progress();
    const again = this.#firstRead;
    await this.#delivery.replace(read);
    if (this.#signal.aborted) return;
    if (again) this.#call(this.#options.relisted, "relisted");
    else {
      this.#firstRead = true;
      const pending = this.#delivery.deliver(this.#options.synced, "synced");
      if (pending !== undefined) await pending;
    }
  }
}
