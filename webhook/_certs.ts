// Reading the certificate and key files, and noticing when they change:
// Deno.watchFs on their directories (the kubelet replaces the `..data`
// symlink of a mounted Secret) and a poll as a backstop.

import type { KeyPair } from "./_front.ts";

/** Reads the pair (synchronously, for a constructor). */
export function readPairSync(certFile: string, keyFile: string): KeyPair {
  return {
    cert: Deno.readTextFileSync(certFile),
    key: Deno.readTextFileSync(keyFile),
  };
}

/** Reads the pair. */
export async function readPair(
  certFile: string,
  keyFile: string,
): Promise<KeyPair> {
  const [cert, key] = await Promise.all([
    Deno.readTextFile(certFile),
    Deno.readTextFile(keyFile),
  ]);
  return { cert, key };
}

function directoryOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash <= 0 ? (slash === 0 ? "/" : ".") : path.slice(0, slash);
}

/**
 * Calls `changed` (serialised, never two at once) when the files may have
 * changed: on a file system event in their directories, and every
 * `pollInterval` ms (0: no poll). Ends with `signal`.
 */
export function watchPair(
  files: readonly string[],
  options: {
    pollInterval: number;
    signal: AbortSignal;
    changed: () => Promise<void>;
    onError: (error: unknown) => void;
  },
): Promise<void> {
  const { signal, changed, onError } = options;
  let running: Promise<void> = Promise.resolve();
  let queued = false;
  const kick = (): void => {
    if (queued || signal.aborted) return;
    queued = true;
    running = running.then(async () => {
      queued = false;
      if (signal.aborted) return;
      try {
        await changed();
      } catch (error) {
        onError(error);
      }
    });
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = (): void => {
    timer = setTimeout(() => {
      kick();
      poll();
    }, options.pollInterval);
  };
  if (options.pollInterval > 0) poll();
  let watcher: Deno.FsWatcher | undefined;
  try {
    watcher = Deno.watchFs([...new Set(files.map(directoryOf))], {
      recursive: false,
    });
  } catch (error) {
    onError(error);
  }
  const watching = (async () => {
    if (watcher === undefined) return;
    try {
      for await (const _event of watcher) kick();
    } catch (error) {
      if (!signal.aborted) onError(error);
    }
  })();
  const stop = (): void => {
    clearTimeout(timer);
    try {
      watcher?.close();
    } catch { /* closed */ }
  };
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  return (async () => {
    await watching;
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await running;
  })();
}
