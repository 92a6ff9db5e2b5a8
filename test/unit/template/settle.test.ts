// The settle rule of a GarmTemplate create whose answer was lost (issue 34 item 7): the own template of the name is
// this create's only when it holds every field the create sent, as GARM echoes them.
import { strict as assert } from "node:assert";
import type { TemplateDetailView } from "../../../provider/garm/client";
import { differsFromSent } from "../../../provider/kinds/template/resource";

const sent = { name: "ci-linux", description: "", osType: "linux", forgeType: "github", body: "#!/bin/bash\n" } as const;
const view = (over: Partial<TemplateDetailView> = {}): TemplateDetailView => ({ id: 3, owner: "admin", createdAt: undefined, ...sent, ...over });

describe("the settle rule of a lost template create answer", () => {
  const rows: [string, Partial<TemplateDetailView>, string[]][] = [
    ["what the create sent", {}, []],
    ["another OS", { osType: "windows" }, ["osType"]],
    ["another forge", { forgeType: "gitea" }, ["forgeType"]],
    ["another body", { body: "#!/bin/sh\n" }, ["body"]],
    ["another description", { description: "theirs" }, ["description"]],
    ["a system template", { owner: "system" }, ["owner"]],
    ["another name", { name: "ci-linux-2" }, ["name"]],
  ];
  for (const [what, over, expected] of rows) it(what, () => assert.deepEqual(differsFromSent(view(over), sent), expected));
});
