// The GARM login shared by every request of a process: at most one login at a time, one re-login per refused token.

interface Login {
  readonly pending: Promise<string>;
  /** Set once the login succeeded. */
  token?: string;
}

export class GarmSession {
  private current: Login | undefined;

  constructor(private readonly login: () => Promise<string>) {}

  /** The token to send: the current login's, starting a login when there is none (none yet, or the last failed). */
  token(): Promise<string> {
    this.current ??= this.begin();
    return this.current.pending;
  }

  /**
   * The token to retry with after GARM refused `refused`. Starts a re-login only when `refused` is still the current
   * token; every request refused for that token shares the one re-login, and a later request uses its result.
   */
  renew(refused: string): Promise<string> {
    if (this.current === undefined || this.current.token === refused) this.current = this.begin();
    return this.current.pending;
  }

  private begin(): Login {
    const login: Login = { pending: this.login() };
    // Handled here as well, so a failed login never surfaces as an unhandled rejection; its waiters still get it.
    login.pending.then(
      (token) => {
        login.token = token;
      },
      () => {
        if (this.current === login) this.current = undefined;
      },
    );
    return login;
  }
}
