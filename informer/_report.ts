// How a collection's failures become error lines: one message per class of
// CollectionError, the error itself (with its class) as `err`.
import { errorReporter, type Logger } from "../_internal/log.ts";
import {
  DecodeError,
  EventHandlerError,
  ListError,
  ObjectRefusedError,
  WatchError,
} from "./errors.ts";

function messageOf(error: unknown): string {
  if (error instanceof ListError) return "List failed";
  if (error instanceof WatchError) return "Watch failed";
  if (error instanceof DecodeError) return "Object not decoded";
  if (error instanceof EventHandlerError) return "Event handler failed";
  if (error instanceof ObjectRefusedError) return "Object refused";
  return "Collection failed";
}

/** The `onError` of a collection's internals: an error line on `logger`. */
export function reportTo(logger: Logger): (error: unknown) => void {
  return errorReporter(logger, messageOf);
}
