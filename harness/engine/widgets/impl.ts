// Implementation of the "widgets" test resource. It runs INSIDE the dynamic-provider process: the serialized
// forwarding provider (provider.ts) require()s it at run time from the project dir's node_modules, the same way our
// real provider objects require "pulumi-garm/provider" (pulumi-behaviour.md §3.4).
import type * as pulumi from "@pulumi/pulumi";

const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
type Props = Record<string, any>;

let cfg: { url: string; token?: string; label?: string } | undefined;

function strip(p: Props): Props {
  const { __provider: _omit, ...rest } = p;
  return rest;
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  if (!cfg) throw new Error("widgets provider used before configure");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cfg.token) headers.authorization = `Bearer ${cfg.token}`;
  const r = await fetch(cfg.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  // "widgets:url" is an explicit namespace; "label" is "<PULUMI_NODEJS_PROJECT>:label" (pulumi-behaviour.md §1.2 configure).
  cfg = { url: req.config.require("widgets:url"), token: req.config.get("widgets:token"), label: req.config.get("label") };
  console.log(`[widgets] configured label=${cfg.label ?? "-"} token=${cfg.token ? "set" : "unset"}`);
}

export async function check(_olds: Props, news: Props, _variant?: string): Promise<pulumi.dynamic.CheckResult> {
  console.log(`[widgets] check ${news.name} ${JSON.stringify(strip(news))}`);
  const failures: pulumi.dynamic.CheckFailure[] = [];
  if (news.size !== UNKNOWN && typeof news.size !== "number") failures.push({ property: "size", reason: "must be a number" });
  return { inputs: news, failures };
}

export async function diff(_id: string, olds: Props, news: Props): Promise<pulumi.dynamic.DiffResult> {
  console.log(`[widgets] diff ${news.name} ${JSON.stringify(strip(news))}`);
  const replaces = olds.name !== news.name ? ["name"] : [];
  const keys = new Set([...Object.keys(strip(news)), ...Object.keys(strip(olds)).filter((k) => k !== "widgetId" && k !== "serial")]);
  const changes = replaces.length > 0 || [...keys].some((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k]));
  return { changes, replaces, deleteBeforeReplace: news.dbr === true };
}

export async function create(inputs: Props): Promise<pulumi.dynamic.CreateResult> {
  const r = await call("POST", "/widgets", { name: inputs.name, size: inputs.size, tag: inputs.tag });
  if (r.status !== 201) throw new Error(`create ${inputs.name}: HTTP ${r.status}`);
  const outs = { ...strip(inputs), widgetId: r.json.id, serial: r.json.serial };
  console.log(`[widgets] created ${inputs.name} #${r.json.id}`);
  if (inputs.initFail) {
    // Partial failure (pulumi-behaviour.md §1.2, pulumi-behaviour.md §2.8): properties must carry __provider themselves.
    throw Object.assign(new Error(`widget ${inputs.name} unhealthy`), { id: r.json.id, properties: { ...inputs, ...outs }, reasons: ["unhealthy"] });
  }
  return { id: r.json.id, outs };
}

export async function read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult> {
  const r = await call("GET", `/widgets/${id}`);
  if (r.status === 404) return { id: "" };
  if (r.status !== 200) throw new Error(`read ${id}: HTTP ${r.status}`);
  const props2: Props = { ...strip(props), size: r.json.size };
  if (r.json.tag !== undefined) props2.tag = r.json.tag;
  return { id, props: props2 };
}

export async function update(id: string, olds: Props, news: Props): Promise<pulumi.dynamic.UpdateResult> {
  const r = await call("PUT", `/widgets/${id}`, { size: news.size, tag: news.tag });
  if (r.status !== 200) throw new Error(`update ${id}: HTTP ${r.status}`);
  console.log(`[widgets] updated ${news.name} #${id}`);
  return { outs: { ...strip(olds), ...strip(news), widgetId: olds.widgetId, serial: olds.serial } };
}

// `delete` is a reserved word as a declaration name, so it is exported under an alias.
async function del(id: string, props: Props): Promise<void> {
  const r = await call("DELETE", `/widgets/${id}`);
  if (r.status !== 204 && r.status !== 404) throw new Error(`delete ${props.name}#${id}: HTTP ${r.status}`);
  console.log(`[widgets] deleted ${props.name} #${id}`);
}
export { del as delete };
