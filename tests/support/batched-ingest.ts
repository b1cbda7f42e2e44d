// The batched ingest call (`record_memories`) as the test models answer it: one entry per
// `<note id="cN">` piece of the request, keyed by its id, made by the same rule as a single
// `record_memory` answer (see src/agents/ingest_batch.rs).

/** Each piece of a batched ingest request's user text: its id and what its fence holds. */
export function ingestPieces(userText: string): Array<{ id: string; fenced: string }> {
	return [...userText.matchAll(/<note id="(c\d+)">\n([\s\S]*?)\n<\/note>/g)].map((match) => ({ id: match[1] ?? "", fenced: match[2] ?? "" }));
}

/** The `record_memories` input for `userText`: `memoryOf` of each piece, with its id as chunk. */
export function batchedMemories(userText: string, memoryOf: (fenced: string) => Record<string, unknown>): { memories: Array<Record<string, unknown>> } {
	return { memories: ingestPieces(userText).map((piece) => ({ chunk: piece.id, ...memoryOf(piece.fenced) })) };
}

/** The text of every user message of a Converse request body. */
export function userTextOf(json: unknown): string {
	const messages = (json as { messages?: Array<{ content?: Array<{ text?: string }> }> } | undefined)?.messages ?? [];
	return messages.flatMap((message) => (message.content ?? []).map((block) => block.text ?? "")).join("\n");
}

/** How many chunks a recorded ingest request carried: one for `record_memory`, one per piece for `record_memories`. */
export function chunksIn(body: string): number {
	if (body.includes('"name":"record_memories"')) return (body.match(/<note id=\\"c\d+\\">/g) ?? []).length;
	return body.includes('"name":"record_memory"') ? 1 : 0;
}
