// Decodes the LZMA streams the build embeds the WebAssembly modules as (tools/pack-wasm writes
// them): the `.lzma` format, a 13-byte header (properties, dictionary size, uncompressed size)
// and one range-coded stream. A port of Igor Pavlov's reference decoder (LzmaSpec.cpp in the
// public-domain LZMA SDK, "LZMA specification" in its DOC folder), decoding straight into the
// output, which serves as the dictionary because the whole output is kept.
//
// Why LZMA and not the platform's gzip (`DecompressionStream`): both modules take 925 KB as
// LZMA against 1,131 KB as gzip (Zopfli), which is 260 KB less main.js. Decoding
// costs more than gzip's native inflate (measured in the start-up benchmark, README).

/** A damaged embedded module fails loudly here rather than deep in WebAssembly. */
function corrupt(what: string): Error {
	return new Error(`Invalid LZMA data: ${what}`);
}

const PROB_INIT = 1024; // half of 1 << 11: a bit equally likely 0 or 1
const TOP = 1 << 24;
const STATES = 12;
const POS_STATES_MAX = 16; // 1 << pb for pb ≤ 4
const END_POS_MODEL_INDEX = 14;
const FULL_DISTANCES = 128;
const ALIGN_BITS = 4;
const LEN_LOW_BITS = 3;
const LEN_MID_BITS = 3;
const LEN_HIGH_BITS = 8;
const MATCH_MIN_LEN = 2;
/** The largest module the decoder accepts (the core is about 2 MB). */
const MAX_OUTPUT = 256 * 1024 * 1024;

/** The range decoder over `input` from `start`, with the adaptive bit models it updates. */
class RangeDecoder {
	private range = 0xffffffff;
	private code = 0;
	private position: number;

	constructor(
		private readonly input: Uint8Array,
		start: number,
	) {
		if (input[start] !== 0) throw corrupt("the stream does not start with a zero byte");
		this.position = start + 1;
		for (let i = 0; i < 4; i++) this.code = this.code * 256 + this.nextByte();
		if (this.code === this.range) throw corrupt("the stream's first code is out of range");
	}

	private nextByte(): number {
		if (this.position >= this.input.length) throw corrupt("the stream ends early");
		return this.input[this.position++] as number;
	}

	/** True when the stream ended where a finished encoder leaves it. */
	finishedCleanly(): boolean {
		return this.code === 0;
	}

	/** One bit by the probability at `probs[index]`, which it adapts. */
	bit(probs: Uint16Array, index: number): number {
		const probability = probs[index] as number;
		const bound = (this.range >>> 11) * probability;
		let bit: number;
		if (this.code < bound) {
			probs[index] = probability + ((2048 - probability) >>> 5);
			this.range = bound;
			bit = 0;
		} else {
			probs[index] = probability - (probability >>> 5);
			this.code -= bound;
			this.range -= bound;
			bit = 1;
		}
		if (this.range < TOP) {
			// range < 2²⁴ and code < range: both stay below 2³² (numbers, never int32 overflow).
			this.range *= 256;
			this.code = this.code * 256 + this.nextByte();
		}
		return bit;
	}

	/** `count` bits with probability one half each, highest first. */
	directBits(count: number): number {
		let result = 0;
		for (let i = 0; i < count; i++) {
			this.range = this.range >>> 1;
			let bit = 0;
			if (this.code >= this.range) {
				this.code -= this.range;
				bit = 1;
			}
			if (this.code === this.range) throw corrupt("a direct bit is out of range");
			result = result * 2 + bit;
			if (this.range < TOP) {
				this.range *= 256;
				this.code = this.code * 256 + this.nextByte();
			}
		}
		return result;
	}

	/** A `bits`-bit symbol from the bit tree at `probs[offset + 1 ..]`, highest bit first. */
	tree(probs: Uint16Array, offset: number, bits: number): number {
		let node = 1;
		for (let i = 0; i < bits; i++) node = (node << 1) + this.bit(probs, offset + node);
		return node - (1 << bits);
	}

	/** The same with the lowest bit first (distances' low bits). */
	reverseTree(probs: Uint16Array, offset: number, bits: number): number {
		let node = 1;
		let symbol = 0;
		for (let i = 0; i < bits; i++) {
			const bit = this.bit(probs, offset + node);
			node = (node << 1) + bit;
			symbol |= bit << i;
		}
		return symbol;
	}
}

/** Match lengths: a choice between 8 short, 8 middle and 256 long ones, by position state. */
class LengthDecoder {
	private readonly choice = new Uint16Array(2).fill(PROB_INIT);
	private readonly low = new Uint16Array(POS_STATES_MAX << LEN_LOW_BITS).fill(PROB_INIT);
	private readonly mid = new Uint16Array(POS_STATES_MAX << LEN_MID_BITS).fill(PROB_INIT);
	private readonly high = new Uint16Array(1 << LEN_HIGH_BITS).fill(PROB_INIT);

	/** The length minus `MATCH_MIN_LEN`. */
	decode(rc: RangeDecoder, posState: number): number {
		if (rc.bit(this.choice, 0) === 0) return rc.tree(this.low, posState << LEN_LOW_BITS, LEN_LOW_BITS);
		if (rc.bit(this.choice, 1) === 0) return 8 + rc.tree(this.mid, posState << LEN_MID_BITS, LEN_MID_BITS);
		return 16 + rc.tree(this.high, 0, LEN_HIGH_BITS);
	}
}

/** The `.lzma` header's fields. */
interface Header {
	literalContextBits: number;
	literalPositionBits: number;
	positionBits: number;
	dictionarySize: number;
	outputSize: number;
}

function readHeader(input: Uint8Array): Header {
	if (input.length < 13 + 5) throw corrupt("shorter than a header and a stream");
	let properties = input[0] as number;
	if (properties >= 9 * 5 * 5) throw corrupt("its properties byte is out of range");
	const literalContextBits = properties % 9;
	properties = Math.floor(properties / 9);
	const literalPositionBits = properties % 5;
	const positionBits = Math.floor(properties / 5);
	const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
	const dictionarySize = view.getUint32(1, true);
	const sizeLow = view.getUint32(5, true);
	const sizeHigh = view.getUint32(9, true);
	// The build always writes the size; an unknown size (all ones) or a huge one is damage.
	if (sizeHigh !== 0 || sizeLow > MAX_OUTPUT) throw corrupt("its size is unknown or too large");
	return { literalContextBits, literalPositionBits, positionBits, dictionarySize, outputSize: sizeLow };
}

/** The CRC-32 (IEEE, as gzip and zlib's `crc32`) table, built on first use. */
let crcTable: Int32Array | undefined;

/** The CRC-32 of `bytes`, as an unsigned number. */
export function crc32(bytes: Uint8Array): number {
	if (crcTable === undefined) {
		crcTable = new Int32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
			crcTable[n] = c;
		}
	}
	const table = crcTable;
	let crc = -1;
	for (let i = 0; i < bytes.length; i++) crc = (table[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
	return (crc ^ -1) >>> 0;
}

/**
 * Decodes an embedded module: its `.lzma` bytes, checked against the CRC-32 the build recorded
 * of the original (LZMA carries no checksum of its own; gzip's CRC did this job before).
 */
export function decodeChecked(input: Uint8Array, expectedCrc32: number): Uint8Array {
	const out = decodeLzma(input);
	if (crc32(out) !== expectedCrc32) throw corrupt("the decoded bytes do not have the checksum the build recorded");
	return out;
}

/**
 * Decodes a `.lzma` file (header with the uncompressed size, then the stream) to its bytes.
 * Throws on anything a finished encoder would not have written.
 */
export function decodeLzma(input: Uint8Array): Uint8Array {
	const header = readHeader(input);
	const lc = header.literalContextBits;
	const lp = header.literalPositionBits;
	const pbMask = (1 << header.positionBits) - 1;
	const lpMask = (1 << lp) - 1;
	const dictionarySize = Math.max(header.dictionarySize, 1 << 12);
	const size = header.outputSize;
	const out = new Uint8Array(size);
	const rc = new RangeDecoder(input, 13);

	const literals = new Uint16Array(0x300 << (lc + lp)).fill(PROB_INIT);
	const isMatch = new Uint16Array(STATES << 4).fill(PROB_INIT);
	const isRep = new Uint16Array(STATES).fill(PROB_INIT);
	const isRepG0 = new Uint16Array(STATES).fill(PROB_INIT);
	const isRepG1 = new Uint16Array(STATES).fill(PROB_INIT);
	const isRepG2 = new Uint16Array(STATES).fill(PROB_INIT);
	const isRep0Long = new Uint16Array(STATES << 4).fill(PROB_INIT);
	const posSlots = new Uint16Array(4 << 6).fill(PROB_INIT);
	const posSpecial = new Uint16Array(1 + FULL_DISTANCES - END_POS_MODEL_INDEX).fill(PROB_INIT);
	const align = new Uint16Array(1 << ALIGN_BITS).fill(PROB_INIT);
	const lengths = new LengthDecoder();
	const repLengths = new LengthDecoder();

	/** The distance (minus one) of a new match of `length` (minus `MATCH_MIN_LEN`). */
	const distance = (length: number): number => {
		const lengthState = Math.min(length, 3);
		const slot = rc.tree(posSlots, lengthState << 6, 6);
		if (slot < 4) return slot;
		const directBits = (slot >>> 1) - 1;
		const base = (2 | (slot & 1)) * 2 ** directBits;
		if (slot < END_POS_MODEL_INDEX) return base + rc.reverseTree(posSpecial, base - slot, directBits);
		return base + rc.directBits(directBits - ALIGN_BITS) * 16 + rc.reverseTree(align, 0, ALIGN_BITS);
	};

	let state = 0;
	let rep0 = 0;
	let rep1 = 0;
	let rep2 = 0;
	let rep3 = 0;
	let pos = 0;
	while (pos < size) {
		const posState = pos & pbMask;
		if (rc.bit(isMatch, (state << 4) + posState) === 0) {
			const previous = pos > 0 ? (out[pos - 1] as number) : 0;
			const base = 0x300 * (((pos & lpMask) << lc) + (previous >>> (8 - lc)));
			let symbol = 1;
			if (state >= 7) {
				let matchByte = out[pos - rep0 - 1] as number;
				while (symbol < 0x100) {
					const matchBit = (matchByte >>> 7) & 1;
					matchByte <<= 1;
					const bit = rc.bit(literals, base + ((1 + matchBit) << 8) + symbol);
					symbol = (symbol << 1) | bit;
					if (matchBit !== bit) break;
				}
			}
			while (symbol < 0x100) symbol = (symbol << 1) | rc.bit(literals, base + symbol);
			out[pos++] = symbol - 0x100;
			state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
			continue;
		}
		let length: number;
		if (rc.bit(isRep, state) !== 0) {
			if (pos === 0) throw corrupt("a repeated match before any byte");
			if (rc.bit(isRepG0, state) === 0) {
				if (rc.bit(isRep0Long, (state << 4) + posState) === 0) {
					state = state < 7 ? 9 : 11;
					out[pos] = out[pos - rep0 - 1] as number;
					pos++;
					continue;
				}
			} else {
				let chosen: number;
				if (rc.bit(isRepG1, state) === 0) {
					chosen = rep1;
				} else {
					if (rc.bit(isRepG2, state) === 0) {
						chosen = rep2;
					} else {
						chosen = rep3;
						rep3 = rep2;
					}
					rep2 = rep1;
				}
				rep1 = rep0;
				rep0 = chosen;
			}
			length = repLengths.decode(rc, posState);
			state = state < 7 ? 8 : 11;
		} else {
			rep3 = rep2;
			rep2 = rep1;
			rep1 = rep0;
			length = lengths.decode(rc, posState);
			state = state < 7 ? 7 : 10;
			rep0 = distance(length);
			if (rep0 === 0xffffffff) throw corrupt("an end marker before the stated size");
			if (rep0 >= pos || rep0 >= dictionarySize) throw corrupt("a match reaches before the start");
		}
		length += MATCH_MIN_LEN;
		if (length > size - pos) throw corrupt("a match runs past the stated size");
		const from = pos - rep0 - 1;
		if (rep0 + 1 >= length) {
			// No overlap: the platform's copy.
			out.copyWithin(pos, from, from + length);
			pos += length;
		} else {
			for (let i = 0; i < length; i++) out[pos + i] = out[from + i] as number;
			pos += length;
		}
	}
	if (!rc.finishedCleanly()) throw corrupt("the stream does not end where its size says");
	return out;
}
