import { strict as assert } from "node:assert";
import { migrateState } from "../../../provider/kinds/garm-provider/inputs";
import { readOutputs } from "../../../provider/kinds/scaleset/state";

const installed = (require("../../../../package.json") as { version: string }).version;

/** Each resource's state reader and the newest state version it reads. */
const readers: [string, (props: Record<string, unknown>) => unknown, number][] = [
  ["GarmScaleSet", readOutputs, 1],
  // 2: the generation of the block it wrote.
  ["GarmProvider", migrateState, 2],
];

describe("state written by a newer pulumi-garm", () => {
  for (const [resource, read, current] of readers) {
    it(`${resource} refuses it, naming the package version that wrote it and asking to upgrade`, () => {
      assert.throws(
        () => read({ name: "x", stateVersion: 99, pulumiGarmVersion: "7.3.0" }),
        (err: Error) => {
          assert.equal(
            err.message,
            `${resource} state version 99 was written by pulumi-garm 7.3.0; this project has pulumi-garm ${installed}, ` +
              `which reads state up to version ${current}: upgrade pulumi-garm in this project (npm install pulumi-garm@latest) and run again`,
          );
          return true;
        },
      );
    });

    it(`${resource} says "a newer pulumi-garm" when the state does not record which one`, () => {
      assert.throws(
        () => read({ name: "x", stateVersion: current + 1 }),
        (err: Error) => err.message.startsWith(`${resource} state version ${current + 1} was written by a newer pulumi-garm;`),
      );
    });

    it(`${resource} reads its current and unversioned state`, () => {
      for (let v = 1; v <= current; v++) assert.doesNotThrow(() => read({ name: "x", stateVersion: v }));
      assert.doesNotThrow(() => read({ name: "x" }));
    });
  }
});
