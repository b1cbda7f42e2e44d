// Type helpers that let partial host classes be checked against the real obsidian declarations.

/**
 * T's members K, where fluent methods (declared to return T itself) may return anything:
 * a host class returns its own `this`, which is not the full Obsidian class. Parameters are
 * still checked, so a changed signature in a new obsidian release fails `tsc`.
 */
export type Fluent<T, K extends keyof T> = {
	[P in K]: T[P] extends (...args: infer A) => T ? (...args: A) => unknown : T[P];
};
