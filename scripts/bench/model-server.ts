// The benchmark's model as a process of its own, so that answering costs the measured
// plugin's main thread nothing: the fake Bedrock (every signature still checked) answering
// with `benchModel`. Prints `{"url"}` on one line; stops on SIGTERM.

import { startFakeBedrock } from "../../tests/fake-bedrock/index";
import { benchModel } from "./model";

const fake = await startFakeBedrock();
fake.respond = benchModel;
// Tens of thousands of calls: the recording of each would only fill memory.
const trim = setInterval(() => fake.requests.splice(0), 1_000);
process.once("SIGTERM", () => {
	clearInterval(trim);
	void fake.close().then(() => process.exit(0));
});
process.stdout.write(`${JSON.stringify({ url: fake.url })}\n`);
