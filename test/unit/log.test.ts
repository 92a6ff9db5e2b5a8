import { strict as assert } from "node:assert";
import { ChangeLog } from "../../provider/common/log";

describe("ChangeLog", () => {
  function harness(reminderMs = 60_000) {
    let clock = 0;
    const lines: string[] = [];
    const log = new ChangeLog({ info: (l) => lines.push(l), warn: (l) => lines.push(`warning: ${l}`) }, () => clock, reminderMs);
    return { log, lines, advance: (ms: number) => void (clock += ms) };
  }

  it("prints a key's first line, skips repeats, and prints again when the key changes", () => {
    const h = harness();
    for (const key of ["a", "a", "a", "b", "b", "a"]) {
      h.log.info(key, () => `state ${key}`);
      h.advance(1000);
    }
    assert.deepEqual(h.lines, ["state a", "state b", "state a"]);
  });

  it("repeats an unchanged key once the reminder interval has passed, telling the line it is a reminder", () => {
    const h = harness(10_000);
    for (let i = 0; i < 25; i++) {
      h.log.info("a", (reminder) => (reminder ? "still a" : "a"));
      h.advance(1000);
    }
    assert.deepEqual(h.lines, ["a", "still a", "still a"]);
  });

  it("counts a warning and an info line with the same key as one state", () => {
    const h = harness();
    h.log.warn("down", () => "GARM is unreachable");
    h.log.warn("down", () => "GARM is unreachable");
    h.log.info("busy", () => "busy");
    assert.deepEqual(h.lines, ["warning: GARM is unreachable", "busy"]);
  });
});
