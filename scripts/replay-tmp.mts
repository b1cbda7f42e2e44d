import { runReplayWasmBench } from "./bench/replay-wasm.ts";
await runReplayWasmBench(process.argv[2]!);
