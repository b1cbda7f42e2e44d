// Reports file sizes (raw and gzip) for the build summary and the WebAssembly measurements.

import fs from "node:fs";
import zlib from "node:zlib";

export function fileSizes(file) {
	const bytes = fs.readFileSync(file);
	return { raw: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
}

export function formatBytes(n) {
	if (n < 1024) return `${n} B`;
	if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
	return `${(n / 1024 / 1024).toFixed(2)} MiB`;
}
