//! TypeScript declarations of the shapes the facade passes, added to the generated
//! `memory_agent.d.ts` so the plugin is type-checked against what Rust really sends.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
export interface CoreStatus {
  memories: number; insights: number; queued: number; running: number; failed: number;
  schemaVersion: number; finished: number; current: string | null;
  paused: string | null; pausedByUser: boolean; pausedCode: string | null;
  /** Another device's copy of this memory was merged into it: the memory is shared by a sync tool. */
  shared: boolean;
  /** What the database file held that Memory Agent's schema does not define, removed when it was opened (no memory is lost); null when nothing was. */
  removedAtOpen: RemovedAtOpen | null;
  /** Why calls go to the previous Haiku instead of the default model (the account may not call it), in words for the user; null while the default is used. */
  modelFallback: string | null;
}
/** Triggers, views, indexes or tables of a database file's own, removed at open. `summary` reads "2 unknown database objects (triggers: a, b)". */
export interface RemovedAtOpen { objects: Array<{ kind: "trigger" | "view" | "index" | "table"; name: string }>; summary: string }
/** A typed setting as the core saves it (trimmed, normalised), or why it cannot be: the sentence shown next to the field. */
export type SettingCheck = { value: unknown } | { problem: string };
export interface Entity { name: string; kind: string }
export interface Position { heading: string | null; line_start: number | null; line_end: number | null }
/**
 * A memory. `happened_on`: its first day (YYYY-MM-DD), null when undated; `also_on`: its later days; `date_source`:
 * where `happened_on` came from — the text, or the note's own date by its name or properties, or the file's (a PDF's or photo's metadata); `facts`: the
 * self-contained statements the IngestAgent recorded besides the summary.
 */
export interface Memory {
  id: string; source_path: string; source_kind: "note" | "selection" | "text"; position: Position;
  raw_text: string; summary: string; entities: Entity[]; topics: string[]; importance: number;
  happened_on: string | null; also_on: string[]; date_source: "text" | "note_name" | "note_property" | "file_metadata";
  facts: string[]; created_at: number; updated_at: number; consolidated: boolean;
  content_hash: string | null;
  /** The kind of `source_path`'s file, and the first page (1-based) of a PDF's memory (null otherwise; `position.line_start`/`line_end` are then its first and last page). */
  fileKind: FileKind; page: number | null;
}
/** What kind of vault file a memory came from, by its extension (an image Bedrock does not take is still "image"; typed text is "note"). */
export type FileKind = "note" | "pdf" | "image";
export interface Connection { from: string; to: string; relationship: string }
export interface Insight { id: string; memory_ids: string[]; insight: string; connections: Connection[]; created_at: number }
/** `number`: its place in the answer's citations, from 1; the number its citation pieces carry. */
export interface Citation {
  number: number; kind: "memory" | "consolidation"; id: string; summary: string; sourcePath: string;
  heading: string | null; lineStart: number | null; lineEnd: number | null; memoryIds: string[];
  /** For a PDF memory `page` is its first page (open `file.pdf#page=N`) and `lineStart`/`lineEnd` its first and last page; an insight is "note" with no page. */
  fileKind: FileKind; page: number | null;
}
/** A question asked before in the same conversation, its answer and the memory ids it cited. */
export interface EarlierTurn { question: string; answer: string; cited: string[] }
/** What merging another device's copy changed here. `theirsBehind`: the other copy lacks something of this one (save it for them); false when the two are alike. */
export interface MergeReport { notesAdopted: number; memoriesAdded: number; memoriesRemoved: number; insightsAdded: number; insightsRemoved: number; theirsBehind: boolean }
/**
 * What one `syncLog` did to this device's own log files: entries and bytes appended, files rewritten without what the
 * user removed (`purgedFiles`), files merged by a compaction with their bytes before and after, and the files written
 * whole (by a purge or a compaction) with the largest one's size.
 */
export interface LogSync {
  appended: number; appendedBytes: number; purgedFiles: number;
  compactedFiles: number; compactedBytesBefore: number; compactedBytesAfter: number;
  filesWritten: number; largestWritten: number;
}
/**
 * What one `replayLogs` did: files read (from their cursors on), entries taken, entries that changed something here,
 * of which `fromOthers` came from other devices (the notes they adopted are read again), and the files that could
 * not all be replayed (the others still were).
 */
export interface LogReplay { files: number; entries: number; merged: number; fromOthers: number; problems: ReplayProblem[] }
/** A log file (vault path) with damaged or refused lines skipped (`unreadable`, the first one in `firstSkipped`), lines of a newer Memory Agent kept for it (`newer`), or that could not be read at all (`error`, else null). */
export interface ReplayProblem { path: string; unreadable: number; firstSkipped: SkippedLine | null; newer: boolean; error: string | null }
/** A line a replay skipped: its first byte's offset in the file, its number when the file was read from its start (else null), and why. */
export interface SkippedLine { byte: number; line: number | null; reason: string }
/** How far the replay running (or the last one) is: bytes taken of the bytes to read. */
export interface ReplayProgress { doneBytes: number; totalBytes: number; running: boolean }
/** A vault folder's files (names, not paths, with their sizes in bytes) and subfolders (names); both empty when it does not exist. */
export interface VaultListing { files: [string, number][]; folders: string[] }
/** What a question is limited to: notes and folders by vault path (a tag as its notes), days (YYYY-MM-DD, inclusive), the labels the panel shows, a selected passage. */
export interface QuestionScope { notes?: string[]; folders?: string[]; from?: string; to?: string; labels?: string[]; passage?: string; passagePath?: string }
/** A piece of an answer, in reading order: Markdown text, or a citation by its number (adjacent ones were cited together). */
export type AnswerPiece = { kind: "text"; text: string } | { kind: "citation"; number: number };
/**
 * An answer: `pieces` is what every renderer draws; `answer` is the same text with `[memory:ID]` markers, only
 * to be sent back as an earlier turn; `unknownCitations`: ids cited that the model was not given, left out;
 * `cutShort`: the answer-length limit cut it (its text says so); `passagesPacked`: note passages read behind memories.
 */
export interface QueryAnswer {
  pieces: AnswerPiece[]; citations: Citation[]; answer: string; unknownCitations: string[]; askedModel: boolean; cutShort: boolean;
  considered: { memoriesTotal: number; insightsTotal: number; memoriesPacked: number; insightsPacked: number; tokensPacked: number; passagesPacked: number; passagesChanged: number; reasons: Array<[string, number]>; plannedKeywords: string[]; scoped: boolean };
  /** The answer's tokens and estimated dollars (null when no model was asked). */
  cost: { usage: TokenUsage; usd: number; priceKnown: boolean; longPromptCalls: number } | null;
}
export interface RunReport { done: number; skipped: number; retrying: number; failed: number; paused: string | null; ran: boolean; nextDueAt: number | null }
export interface Removal { memories: string[]; consolidations: string[]; reopened: string[] }
/** What a job does, with its input (`payAfter`: no model call for the note before then). */
export type JobWork =
  | { kind: "ingest_source"; payload: { path: string; payAfter?: number } }
  | { kind: "ingest_text"; payload: TextToRemember & { sourcePath: string } }
  | { kind: "consolidate"; payload: { trigger: string | null } };
/** `attempts`: tries with a wrong answer (transient failures never count); `next_run_at`: when a waiting job's next try is; `last_error`: why the last try failed and what happens next. */
export type Job = JobWork & {
  id: number; key: string; state: "queued" | "running" | "failed"; attempts: number; next_run_at: number;
  last_error: string | null; created_at: number; updated_at: number;
};
export interface Source { path: string; mtime: number; size: number; sha256: string; updated_at: number; skipped: string | null }
export interface TokenUsage { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }
export interface UsageReport {
  records: Array<{ day: string; agent: string; calls: number; inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }>;
  total: TokenUsage; calls: number; estimatedCostUsd: number;
  /** False when the model is not in the price table: the estimate then uses the highest price. */
  priceKnown: boolean; modelId: string;
  spentTodayUsd: number; spentThisMonthUsd: number; dailyLimitUsd: number; monthlyLimitUsd: number;
}
/** A model or inference profile this account may call here (`kind`: "profile" or "model"). */
export interface ModelChoice { id: string; name: string; kind: "profile" | "model" }
/** `modelId`: the model that answered; `fallback`: why it is not the default one (null when it is). */
export interface ConnectionCheck { modelId: string; region: string; latencyMs: number; clockOffsetMs: number; fallback: string | null }
export interface Progress { finished: number; queued: number; running: number; failed: number; current: string | null; paused: string | null }
export interface SelfCheckResult { name: string; ok: boolean; error?: string }
export interface MemoryCursor { key: number }
export interface MemoryQuery {
  text?: string | null; source?: string | null; entity?: string | null; topic?: string | null;
  from?: string | null; to?: string | null; before?: MemoryCursor | null; limit?: number;
  /** Only memories of notes (with selections and typed text), of PDFs, or of images. */
  fileKind?: FileKind | null;
}
export interface MemoryPage { memories: Memory[]; next: MemoryCursor | null; matching: number | null; total: number }
export interface InsightPage { insights: Insight[]; next: MemoryCursor | null; total: number }
/** `unfinished`: why the check could not run to its end (not damage: damage throws `store.corrupt`), else null. */
export interface Integrity { repairedIndex: boolean; unfinished: string | null }
export interface Compaction { bytesBefore: number; bytesAfter: number }
export interface SkippedSources { sources: Source[]; total: number }
export interface QueryPlan { dates: [string, string] | null; entities: string[]; keywords: string[]; wantsLatest: boolean }
export interface Recall {
  plan: QueryPlan; memories: Memory[]; insights: Insight[]; tokens: number; reasons: Array<[string, number]>;
  memoriesTotal: number; insightsTotal: number;
}
export interface TextToRemember {
  text: string; sourcePath?: string; kind: "selection" | "text"; heading?: string | null;
  lineStart?: number | null; noteDate?: string | null;
}
export type BedrockAuthSettings =
  | { kind: "accessKey"; accessKeyId: string; secretAccessKey: string; sessionToken?: string | null }
  | { kind: "apiKey"; apiKey: string };
export interface ConnectionSettings {
  region: string; modelId?: string | null; auth: BedrockAuthSettings; endpoint?: string | null;
  /** The endpoint host this device's user confirmed (device-local, never synced); any other non-AWS host throws `llm.endpoint_unconfirmed`. */
  trustedEndpointHost?: string | null;
  timeoutMs?: number; maxConcurrency?: number;
}
export interface EngineSettings {
  consolidationThreshold?: number; consolidationBatchSize?: number; dailyConsolidation?: boolean;
  maxChunkTokens?: number; maxNoteBytes?: number; queryBudgetTokens?: number; maxAnswerTokens?: number;
  maxJobAttempts?: number; jobRetryBaseMs?: number; parallelJobs?: number;
  dateOrder?: "dayMonth" | "monthDay"; secondPass?: boolean; planQuestions?: boolean; readPassages?: boolean;
  /** Spending limits in US dollars a local day and month (0 = none). */
  dailyLimitUsd?: number; monthlyLimitUsd?: number;
  /** Once the memory is shared, how long a note whose text may come from another device waits before it is paid for. */
  otherDeviceWaitMs?: number;
  /** How many chunks, of one note or several, one ingest call may carry (1 to 20; 1 = one call per chunk). */
  ingestBatchChunks?: number;
  /** Which notes are never read or sent; checked by the core right before a note is read and sent. */
  scope?: CoreScopeRules;
}
export interface CoreScopeRules {
  configDir?: string; databasePath?: string; includePlainText?: boolean;
  /** "Remember images and scanned pages": images and PDF pages without text go to the model only when on. */
  includeImages?: boolean;
  excludedFolders?: string[]; excludedPatterns?: string[]; excludedTags?: string[];
  /** Obsidian's "Excluded files": paths, or `/regex/` (matched with JavaScript's RegExp in the worker). */
  ignoreFilters?: string[];
}
/**
 * A vault file the plugin asks about (`exclusions`): decided by its path, then by its content —
 * from Obsidian's metadata cache when given (its `frontmatter` object as parsed, its body tags
 * as listed, `#tag`), else with `read` from the note read in the worker, else when it is read.
 */
export interface ExclusionQuery {
  path: string; metadata?: { frontmatter?: Record<string, unknown> | null; tags?: string[] } | null; read?: boolean; size?: number;
}
/** A vault file to estimate: its size in bytes and, for a PDF whose page count is known, its pages. */
export interface IngestFile { path: string; size: number; pages?: number }
/**
 * What remembering some files will roughly cost. PDFs are estimated as text PDFs (about 500 tokens a page; `pdfPages`
 * guessed from their size where not given); `images`: images Bedrock takes, `imageTokens` their share of `inputTokens`
 * at the size sent (≈1,534 each). Files over a size or page limit, and images Bedrock does not take, are not counted.
 */
export interface IngestEstimate {
  notes: number; pdfs: number; pdfPages: number; images: number; imageTokens: number;
  inputTokens: number; outputTokens: number; costUsd: number;
  /** `costUsd` by kind of file; they add up to it. */
  notesCostUsd: number; pdfsCostUsd: number; imagesCostUsd: number;
  modelId: string; priceKnown: boolean;
}
/** `device`: this device's id (kept by the plugin on the device), so its calls are counted apart from other devices'. */
export interface CoreSettings { engine?: EngineSettings; connection?: ConnectionSettings | null; device?: string }
/** Bodies are UTF-8 bytes: they move between the worker and the main thread without a copy. */
export interface HostRequest { method: string; url: string; headers: Record<string, string>; body: Uint8Array }
export interface HostResponse { status: number; headers: Record<string, string>; body: Uint8Array }
export interface VaultFileData { bytes: Uint8Array; mtime: number; size: number }
/** What the plugin hands to attachHost. A rejected send with code "offline" means no connection. */
export interface CoreHost {
  send(request: HostRequest): Promise<HostResponse>;
  /** A sleep the core gives up (a call answered before its timeout) is ended with `cancel`, when there is one. */
  sleep(ms: number): Promise<void> & { cancel?(): void };
  now(): number;
  /** A file over `maxBytes` (the core's limit) is not read: `bytes` empty, `size` its size. */
  readFile(path: string, maxBytes: number): Promise<VaultFileData | null>;
  utcOffsetMinutes(): number;
  progress(progress: Progress): void;
  /** The PDF's text per page by pdf.js (and its pages without text rendered, when asked); a PDF it cannot read is an answer with `problem`; a rejection means pdf.js could not run (tried again later). */
  extractPdf(bytes: Uint8Array, options: PdfExtractOptions): Promise<PdfContentData>;
  /** Decodes the picture with the platform and does what `request` asks (decode only when `jpegQualities` is empty). A rejection with `code` "image.unreadable" means the file cannot be decoded; any other, that the device could not decode just now (tried again later). */
  renderImage(bytes: Uint8Array, request: ImageRender): Promise<RenderedImageData>;
  // The device log's file operations (vault paths; a rejection is the operation's error).
  /** What a folder holds; empty lists when it does not exist. */
  listFolder(path: string): Promise<VaultListing>;
  /** The file's bytes from `offset` to its end; null when it does not exist. */
  readFrom(path: string, offset: number): Promise<Uint8Array | null>;
  /** Adds `text` at the end of the file (made, with its folders, when missing); its size in bytes after. */
  appendText(path: string, text: string): Promise<number>;
  /** Writes a new file whole (folders made when missing); rejects when the file exists: a log file is never overwritten in place. */
  createFile(path: string, text: string): Promise<void>;
  /** Removes the file; one already gone is no error. */
  removeFile(path: string): Promise<void>;
}
/** Draw the picture upright (its EXIF `orientation`, 1–8) at `width` × `height`, on white, and encode it as JPEG at the first of `jpegQualities` (1–100) whose bytes fit `maxBytes`. */
export interface ImageRender { width: number; height: number; orientation: number; jpegQualities: number[]; maxBytes: number }
/** The decoded picture's size as drawn (upright), and the JPEG when one was asked for (else empty). */
export interface RenderedImageData { width: number; height: number; bytes: Uint8Array }
export interface PdfExtractOptions { maxPages: number; renderScans: boolean; scanPixels: number; scanBelowChars: number; maxChars: number }
export interface PdfProblem { kind: "encrypted" | "broken" | "tooManyPages" | "tooMuchText" | "unavailable"; message: string }
/** Dates raw, as the PDF holds them: "D:20260102093000+01'00'". */
export interface PdfInfo { title: string | null; author: string | null; creationDate: string | null; modDate: string | null }
export interface PdfContentData {
  problem: PdfProblem | null; pageCount: number; info: PdfInfo;
  /** Empty when `problem` is set. */
  pages: PdfPageData[];
}
/** `number`: 1-based; `lines`: in pdf.js's reading order, `height` the font height in PDF units; `scan`: the page rendered, when it has (almost) no text and scans were asked for. */
export interface PdfPageData { number: number; lines: PdfLine[]; scan: PdfScan | null }
export interface PdfLine { text: string; height: number }
export interface PdfScan { bytes: Uint8Array; format: "jpeg" | "png"; width: number; height: number }
"#;
