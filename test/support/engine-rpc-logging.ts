// The Pulumi engine's own -v=9 log lines that print the properties of RPCs, secrets in clear (as it prints secret stack
// config): the engine's behaviour, which the secrets tests set apart from every other line, where no secret may appear.
export const ENGINE_RPC_LOGGING = /"msg":"((Unm|M)arshaling property for RPC\[|Planner decided to |(eventSink::Debug\(<\{%reset%\}>)?RegisterResource RPC finished: )/;
