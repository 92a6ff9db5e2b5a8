// What a provider process keeps per GARM client: one object per client, and answers shared by the operations that ask
// GARM the same question. Every cache of GARM facts is built from these two.

/** `make` runs once per client; what it made lives as long as the client. Later calls' extra arguments are not used. */
export function perClient<C extends object, A extends unknown[], T>(make: (client: C, ...args: A) => T): (client: C, ...args: A) => T {
  const made = new WeakMap<C, T>();
  return (client, ...args) => {
    if (made.has(client)) return made.get(client) as T;
    const value = make(client, ...args);
    made.set(client, value);
    return value;
  };
}

/**
 * Answers by key. Concurrent askers share one request; an answer stays kept while `keep` accepts it, and a refused
 * answer or a failure is forgotten as it settles, so the next asker asks again.
 */
export class SharedAnswers<T> {
  private readonly answers = new Map<string, Promise<T>>();

  constructor(private readonly keep: (answer: T) => boolean = () => true) {}

  /** The kept or pending answer for `key`, else a new one from `ask`. */
  get(key: string, ask: () => Promise<T>): Promise<T> {
    return this.answers.get(key) ?? this.renew(key, ask);
  }

  /** The kept or pending answer for `key`, without asking. */
  peek(key: string): Promise<T> | undefined {
    return this.answers.get(key);
  }

  /** A new answer from `ask`, in place of any kept one. */
  renew(key: string, ask: () => Promise<T>): Promise<T> {
    const pending = ask();
    this.answers.set(key, pending);
    const forget = () => {
      if (this.answers.get(key) === pending) this.answers.delete(key);
    };
    // Registered before any asker's own handlers, so an asker told of a miss finds it already forgotten.
    pending.then((answer) => {
      if (!this.keep(answer)) forget();
    }, forget);
    return pending;
  }
}
