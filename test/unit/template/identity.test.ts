// Whether GARM's template under a stored id is this resource's (issue 34 item 8): with GARM's created_at recorded the
// name does not matter (a rename behind Pulumi's back stays ours, an id a database restore handed on does not).
import { strict as assert } from "node:assert";
import type { TemplateDetailView } from "../../../provider/garm/client";
import { isSameTemplate } from "../../../provider/kinds/template/state";

const at = "2026-12-04T02:00:00.123Z";
const stored = { name: "ci-linux", owner: "admin", forgeType: "github", osType: "linux", garmCreatedAt: at } as const;
const view = (over: Partial<TemplateDetailView> = {}): TemplateDetailView =>
  ({ id: 3, name: "ci-linux", description: "", osType: "linux", forgeType: "github", owner: "admin", body: "", createdAt: at, ...over }) as TemplateDetailView;

describe("which template a stored template id names", () => {
  const rows: [string, Partial<typeof stored> | typeof stored, Partial<TemplateDetailView>, boolean][] = [
    ["the same template", stored, {}, true],
    ["renamed behind Pulumi's back", stored, { name: "renamed" }, true],
    ["an id handed on by a restore: another created_at", stored, { createdAt: "2026-12-04T02:05:00.000Z" }, false],
    ["handed on, also under the same name", stored, { createdAt: "2026-12-04T02:05:00.000Z", name: "ci-linux" }, false],
    ["another owner", stored, { owner: "bob" }, false],
    ["another OS", stored, { osType: "windows" }, false],
    ["a system template", stored, { owner: "system" }, false],
    ["state from before created_at was kept: the name decides", { ...stored, garmCreatedAt: undefined }, { name: "renamed" }, false],
    ["state from before created_at was kept, same name", { ...stored, garmCreatedAt: undefined }, {}, true],
  ];
  for (const [what, outputs, over, ours] of rows) it(what, () => assert.equal(isSameTemplate(outputs, view(over)), ours));
});
