// GarmScaleSet inputs for the GARM simulator's defaults (organization "acme", provider "fake"), shared by tests and
// benchmarks that need a valid scale set and care only about the fields they override.

/** A valid scale set named `name` under the simulator's organization and provider, with `extra` on top. */
export function simulatorScaleSetInputs(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    organization: "acme",
    providerName: "fake",
    image: "ubuntu",
    flavor: "small",
    labels: ["linux", "x64"],
    maxRunners: 2,
    ...extra,
  };
}
