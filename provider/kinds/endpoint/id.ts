// A GarmEndpoint's Pulumi id: `<forge>/<name>`, so it never equals the endpoint's name. Pulumi's `import --file`
// codegen makes an input a reference only where its text is one resource's id or name and no other's (pulumi-behaviour.md
// §2.6): an id equal to the name would keep every credentials' `endpoint:` a literal, and destroy would delete the
// endpoint beside the credentials that use it. State written before this keeps its id, the bare name.
import { FORGES, type Forge } from "../../common/forges";

/** The id create and import give an endpoint. */
export function endpointId(forge: Forge, name: string): string {
  return `${forge}/${name}`;
}

/** The forge and name an id states: `<forge>/<name>`, or a bare name (state written before ids carried the forge). */
export function parseEndpointId(id: string): { forge?: Forge; name: string } {
  const slash = id.indexOf("/");
  const prefix = slash < 0 ? undefined : id.slice(0, slash);
  if (prefix === undefined || !(FORGES as readonly string[]).includes(prefix)) return { name: id };
  return { forge: prefix as Forge, name: id.slice(slash + 1) };
}
