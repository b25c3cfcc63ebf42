/**
 * The request timeouts of one client, on one timer.
 *
 * Every request of a client has the same limit, so deadlines arrive in the
 * order requests start: a FIFO queue and one timer armed for the oldest
 * pending deadline replace a timer per request (which costs more than the
 * rest of the client's own work on a loopback request). The timer is cleared
 * whenever nothing is pending, so no timer outlives the requests.
 */
export class Deadlines {
  #queue: Deadline[] = [];
  #head = 0;
  #pending = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Starts a deadline `ms` from now; `expire` runs if it passes first. */
  add(ms: number, expire: () => void): Deadline {
    const deadline: Deadline = { at: Date.now() + ms, expire, done: false };
    this.#queue.push(deadline);
    this.#pending++;
    if (this.#timer === undefined) this.#arm(ms);
    return deadline;
  }

  /** Ends a deadline that did not pass. */
  done(deadline: Deadline): void {
    if (deadline.done) return;
    deadline.done = true;
    this.#pending--;
    if (this.#pending === 0) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#queue = [];
      this.#head = 0;
    }
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#fire(), Math.max(ms, 0));
  }

  #fire(): void {
    this.#timer = undefined;
    const now = Date.now();
    const expired: Deadline[] = [];
    while (this.#head < this.#queue.length) {
      const next = this.#queue[this.#head]!;
      if (!next.done && next.at > now) break;
      this.#head++;
      if (!next.done) {
        next.done = true;
        this.#pending--;
        expired.push(next);
      }
    }
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (this.#pending > 0) {
      this.#arm(this.#queue[this.#head]!.at - now);
    } else {
      this.#queue = [];
      this.#head = 0;
    }
    for (const deadline of expired) deadline.expire();
  }
}

/** One request's deadline. */
export interface Deadline {
  at: number;
  expire: () => void;
  done: boolean;
}
