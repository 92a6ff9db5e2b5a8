// The stack config examples/two-garms reads: one GARM login per region, the passwords as secrets.
interface Login {
  readonly url: string;
  readonly username: string;
  readonly password: string;
}

export function twoGarmsConfig(eu: Login, us: Login): Record<string, string | { value: string; secret: boolean }> {
  return Object.fromEntries(
    Object.entries({ eu, us }).flatMap(([region, login]) => [
      [`${region}Url`, login.url],
      [`${region}Username`, login.username],
      [`${region}Password`, { value: login.password, secret: true }],
    ]),
  );
}
