// CRC-32 (IEEE, as gzip's) of the modules the build embeds, which plugin/worker/lzma.ts checks
// after decoding. Here rather than node:zlib's `crc32`, which Node has only since 20.15.

const TABLE = (() => {
	const table = new Int32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		table[n] = c;
	}
	return table;
})();

/** The CRC-32 of `bytes`, as an unsigned number. */
export function crc32(bytes) {
	let crc = -1;
	for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
	return (crc ^ -1) >>> 0;
}
