import { strict as assert } from "node:assert";
import { EngineLog, type LogSink } from "../../provider-plugin/engine-log";

function recorder(delayMs = 0): { sink: LogSink; sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    sink: {
      send: (severity, message, urn) =>
        new Promise((resolve) =>
          setTimeout(() => {
            sent.push(`${severity} ${urn} ${message}`);
            resolve();
          }, delayMs),
        ),
    },
  };
}

describe("the plugin's engine log", () => {
  it("sends each line with the URN of the request it was written under, through timers and awaits", async () => {
    const { sink, sent } = recorder();
    const log = new EngineLog(sink);
    await Promise.all([
      log.within("urn:a", async () => {
        await new Promise((r) => setTimeout(r, 5));
        log.info("draining:\n 1 left");
      }),
      log.within("urn:b", async () => log.warn("could not read GARM while planning")),
    ]);
    log.info("no resource");
    await log.flushed();
    assert.deepEqual(sent, ["warning urn:b could not read GARM while planning", "info urn:a draining: 1 left", "info  no resource"]);
  });

  it("keeps the order of lines and resolves flushed only once all are sent", async () => {
    const { sink, sent } = recorder(5);
    const log = new EngineLog(sink);
    for (const n of [1, 2, 3]) log.info(`line ${n}`);
    await log.flushed();
    assert.deepEqual(sent, ["info  line 1", "info  line 2", "info  line 3"]);
  });
});
