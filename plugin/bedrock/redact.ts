// Removes secret values from text before it is shown, as a last line of defence.

/** Secrets shorter than this are not searched for: they would match ordinary words. */
const MIN_SECRET_LENGTH = 4;

/** `text` with every occurrence of each secret replaced by a mark. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
	let result = text;
	for (const secret of secrets) {
		if (secret.length < MIN_SECRET_LENGTH) continue;
		result = result.split(secret).join("[hidden]");
	}
	return result;
}
