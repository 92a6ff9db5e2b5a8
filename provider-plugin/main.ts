// pulumi-resource-garm: serves provider/'s resources over Pulumi's resource-provider protocol. The engine starts it
// with its own address as the first argument and reads the port from the first line of stdout.
import { PACKAGE_VERSION } from "../provider/common/state-version";
import { pluginSchema } from "./schema";
import { serve } from "./server";

async function main(): Promise<void> {
  if (process.argv.includes("--schema")) {
    process.stdout.write(`${JSON.stringify(pluginSchema(PACKAGE_VERSION), null, 2)}\n`);
    return;
  }
  let schemaText: string | undefined;
  const { port } = await serve({
    version: PACKAGE_VERSION,
    engineAddress: process.argv[2],
    schema: () => (schemaText ??= JSON.stringify(pluginSchema(PACKAGE_VERSION))),
  });
  process.stdout.write(`${port}\n`);
}

main().catch((err: unknown) => {
  console.error(`pulumi-resource-garm could not start: ${(err as Error).message}`);
  process.exit(1);
});
