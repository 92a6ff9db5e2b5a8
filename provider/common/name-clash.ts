// A rename onto a name GARM already holds for another object: GARM's unique name index refuses it with a bare 500 at
// `up` (templates: database/sql/templates.go L226-228; credentials: github.go L470-474, gitea.go), so preview looks the
// name up first and `up` says what the 500 meant.
import { containsUnknown } from "./unknown";

export interface NameHolder {
  readonly id: number | string;
  readonly name: string;
}

/** The new name when the inputs rename the object to what GARM counts as another name; undefined otherwise. */
export function renamedTo(olds: Record<string, unknown> | undefined, news: Record<string, unknown>, same: (a: string, b: string) => boolean): string | undefined {
  const was = olds?.["name"];
  const name = news["name"];
  if (typeof was !== "string" || typeof name !== "string" || containsUnknown(name) || same(was, name)) return undefined;
  return name;
}

/** The check failure for a taken name, named by the field users wrote. */
export function nameTakenFailure(what: string, name: string, holder: NameHolder): { property: string; reason: string } {
  return { property: "name", reason: `name ${JSON.stringify(name)} is taken: GARM already has ${what} ${JSON.stringify(holder.name)} (id ${holder.id}), and names are unique; choose another name` };
}

/** What `up` says when GARM refused the rename and the name turns out to be taken. */
export function nameTakenError(label: string, what: string, name: string, holder: NameHolder): Error {
  return new Error(`${label}: not renamed to ${JSON.stringify(name)}: GARM already has ${what} ${JSON.stringify(holder.name)} (id ${holder.id}) and refused the rename; choose another name, then run again`);
}
