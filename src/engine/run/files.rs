//! A note job whose path names a PDF or an image (`notes::FileKind`): read within the kind's
//! limit, unchanged files found by their digest, renamed ones by their chunks' content hashes —
//! the same steps as a note's, with the host's pdf.js for a PDF's text and the model's eyes
//! for pictures (only when "Remember images and scanned pages" is on).

use serde_json::{json, Map, Value};

use super::{Finished, Made, NoteAttempt, NoteMemories, ReadNote, SourceFacts};
use crate::agents::ingest::{extract_image, ImageInput};
use crate::agents::{AgentError, Model};
use crate::calendar::CalendarDate;
use crate::domain::{DateSource, Position, SourceKind};
use crate::engine::batcher::Seat;
use crate::engine::failure::JobError;
use crate::engine::host::Host;
use crate::engine::metered::MeteredModel;
use crate::engine::Engine;
use crate::hash::file_digest_hex;
use crate::images::{prepare, PreparedImage};
use crate::notes::kind::{MAX_IMAGE_BYTES, MAX_PDF_BYTES, MAX_PDF_PAGES};
use crate::notes::pdf::{chunk_pdf, pdf_date, PdfChunk, PdfContent, PdfExtractOptions, PdfProblem, PdfProblemKind};
use crate::notes::{content_hash, path_date, Chunk};
use crate::store::SqlDriver;

const MEGABYTE: u64 = 1024 * 1024;
/// pdf.js's own words in a reason are cut to this many characters.
const PDF_MESSAGE_CHARS: usize = 200;

/// A file read for a job, or how the job ended before anything was sent.
enum Opened {
    Read(ReadNote, String),
    Ended(Finished),
}

/// How one scanned page ended.
enum ScanOutcome {
    /// It has its memory or is quiet.
    Accounted,
    /// It cannot be sent (`images::prepare` refused it): nothing is stored for it.
    LeftOut,
    Ended(Finished),
}

impl<D: SqlDriver> Engine<D> {
    /// Remembers a PDF: its text by sections (batched with other jobs' chunks, as a note's),
    /// and, when images are remembered, each page without text by the model's eyes (alone).
    pub(super) async fn ingest_pdf<H: Host>(
        &self,
        host: &H,
        attempt: &NoteAttempt<'_>,
        seat: Seat<'_>,
    ) -> Result<Finished, JobError> {
        let include_images = self.settings().scope.include_images;
        let too_large = |size| too_large(size, MAX_PDF_BYTES, "PDFs");
        // Recorded as the digest of `text:{digest}` while images are off (the store keeps a
        // digest in hex): turning them on reads the PDF again — its text chunks are found
        // unchanged, at no cost; its scans are sent.
        let recorded = |digest: &str| {
            if include_images {
                digest.to_owned()
            } else {
                file_digest_hex(format!("text:{digest}").as_bytes())
            }
        };
        let (read, digest) = match self.open_file(host, attempt, MAX_PDF_BYTES, &too_large, &recorded).await? {
            Opened::Read(read, digest) => (read, digest),
            Opened::Ended(finished) => return Ok(finished),
        };
        if read.file.bytes.is_empty() {
            return Ok(self.skip(&read.path, &read.file, read.sha256, "the PDF is empty", read.started)?);
        }
        let options = PdfExtractOptions::for_ingest(include_images, self.settings().max_note_bytes);
        let content = host
            .extract_pdf(&read.file.bytes, &options)
            .await
            .map_err(|reason| JobError::VaultRead { path: read.path.clone(), reason })?;
        let Some(path) = self.landing(attempt.queued_path, attempt.generation, read.started)? else {
            return Ok(Finished::Discarded);
        };
        if let Some(problem) = &content.problem {
            // A host without pdf.js leaves the PDF to one with it: nothing is recorded, so no
            // device is told it was read.
            let Some(reason) = problem_reason(problem, content.page_count, options.max_chars) else {
                return Ok(Finished::Skipped);
            };
            return Ok(self.skip(&path, &read.file, read.sha256, &reason, read.started)?);
        }
        let read = ReadNote { path, ..read };
        self.remember_pdf(host, attempt, seat, read, &digest, &content).await
    }

    async fn remember_pdf<H: Host>(
        &self,
        host: &H,
        attempt: &NoteAttempt<'_>,
        seat: Seat<'_>,
        read: ReadNote,
        digest: &str,
        content: &PdfContent,
    ) -> Result<Finished, JobError> {
        let settings = self.settings();
        let own_date = pdf_date(&content.info, &read.path);
        let facts = SourceFacts {
            note_date: own_date
                .map_or_else(|| CalendarDate::at(read.file.mtime, host.utc_offset_minutes()), |(date, _)| date),
            own_date,
            metadata: pdf_metadata(content),
            expected_tokens: Some(super::super::spending::expected_pdf_text_tokens(content.page_count)),
        };
        let (mut chunks, mut scans) = (Vec::new(), Vec::new());
        for chunk in chunk_pdf(content, digest, settings.max_chunk_tokens) {
            match chunk {
                PdfChunk::Text(chunk) => chunks.push(chunk),
                PdfChunk::Scan { page, scan, content_hash } => {
                    let chunk = Chunk {
                        heading_path: None,
                        line_start: page,
                        line_end: page,
                        text: String::new(),
                        content_hash,
                    };
                    scans.push((chunk, scan.bytes));
                }
            }
        }
        let mut made = match self.make_memories(host, attempt, &read, &chunks, &facts, seat).await? {
            Made::Memories(made) => made,
            Made::Ended(finished) => return Ok(finished),
        };
        // Pages are sent only while images are remembered (a host renders them only then).
        if !scans.is_empty() && settings.scope.include_images {
            let client = self.client()?;
            let stopped =
                || !self.may_send_for_jobs() || self.fences.landing(attempt.queued_path, attempt.generation).is_none();
            let model = MeteredModel::new(&client, host, &self.store, "ingest", &stopped);
            for (chunk, bytes) in scans {
                let picture = Picture { chunk: &chunk, bytes: &bytes, page: Some(chunk.line_start) };
                match self.remember_picture(host, &model, attempt, &read, &picture, &facts, &mut made).await? {
                    ScanOutcome::Accounted => chunks.push(chunk),
                    ScanOutcome::LeftOut => {}
                    ScanOutcome::Ended(finished) => return Ok(finished),
                }
            }
        }
        Ok(self.store_note(host, attempt, read, &chunks, made)?)
    }

    /// Remembers an image file (only in scope when images are remembered): one memory of what
    /// it shows, dated by when it was taken (EXIF) or its name.
    pub(super) async fn ingest_image<H: Host>(
        &self,
        host: &H,
        attempt: &NoteAttempt<'_>,
    ) -> Result<Finished, JobError> {
        let too_large = |size| too_large(size, MAX_IMAGE_BYTES, "images");
        let (read, digest) = match self.open_file(host, attempt, MAX_IMAGE_BYTES, &too_large, &str::to_owned).await? {
            Opened::Read(read, digest) => (read, digest),
            Opened::Ended(finished) => return Ok(finished),
        };
        let image = match prepare(host, &read.file.bytes).await {
            Ok(image) => image,
            Err(reason) if reason.is_the_file_s() => {
                return Ok(self.skip(&read.path, &read.file, read.sha256, &reason.to_string(), read.started)?)
            }
            Err(reason) => return Err(JobError::VaultRead { path: read.path.clone(), reason: reason.to_string() }),
        };
        let own_date = image
            .taken
            .map(|date| (date, DateSource::FileMetadata))
            .or_else(|| path_date(&read.path).map(|date| (date, DateSource::NoteName)));
        let facts = SourceFacts {
            note_date: own_date
                .map_or_else(|| CalendarDate::at(read.file.mtime, host.utc_offset_minutes()), |(date, _)| date),
            own_date,
            metadata: Value::Null,
            expected_tokens: None,
        };
        let chunk = Chunk {
            heading_path: None,
            line_start: 0,
            line_end: 0,
            text: String::new(),
            content_hash: content_hash(None, &format!("image:{digest}")),
        };
        let client = self.client()?;
        let stopped =
            || !self.may_send_for_jobs() || self.fences.landing(attempt.queued_path, attempt.generation).is_none();
        let model = MeteredModel::new(&client, host, &self.store, "ingest", &stopped);
        let mut made = NoteMemories::default();
        let picture = Picture { chunk: &chunk, bytes: &read.file.bytes, page: None };
        let prepared = Prepared { image, dated: own_date.map(|(date, _)| date) };
        match self.remember_prepared(host, &model, attempt, &read, &picture, prepared, &facts, &mut made).await? {
            ScanOutcome::Accounted => Ok(self.store_note(host, attempt, read, std::slice::from_ref(&chunk), made)?),
            // `prepare` already succeeded: an image is never left out here.
            ScanOutcome::LeftOut => Ok(Finished::Done),
            ScanOutcome::Ended(finished) => Ok(finished),
        }
    }

    /// The steps every file takes before its content is read: the file within `max_bytes`
    /// (gone: as a deleted note; over: skipped with `too_large`'s words), where it lands now,
    /// its digest (recorded as `recorded` makes it), unchanged files done, and the wait for
    /// another device.
    async fn open_file<H: Host>(
        &self,
        host: &H,
        attempt: &NoteAttempt<'_>,
        max_bytes: u64,
        too_large: &dyn Fn(u64) -> String,
        recorded: &dyn Fn(&str) -> String,
    ) -> Result<Opened, JobError> {
        let Some(file) = self.read_within(host, attempt.queued_path, max_bytes).await? else {
            return Ok(Opened::Ended(self.note_gone(attempt, host.now())?));
        };
        let now = host.now();
        self.store.set_utc_offset(host.utc_offset_minutes());
        let Some(path) = self.landing(attempt.queued_path, attempt.generation, now)? else {
            return Ok(Opened::Ended(Finished::Discarded));
        };
        if file.is_over(max_bytes) {
            // Refused on its size alone: the host never read it, so there is no digest.
            return Ok(Opened::Ended(self.skip(&path, &file, String::new(), &too_large(file.size), now)?));
        }
        let digest = file_digest_hex(&file.bytes);
        let read = ReadNote { path, sha256: recorded(&digest), file, started: now };
        if self.record_if_unchanged(&read)? || self.read_in_full_already(&read, &digest)? {
            return Ok(Opened::Ended(Finished::Done));
        }
        if let Some(finished) = self.wait_for_other_device(attempt, &read)? {
            return Ok(Opened::Ended(finished));
        }
        Ok(Opened::Read(read, digest))
    }

    /// True when the record is of these very bytes read in full (a PDF's scans included, by a
    /// device — this one earlier, or another — with images on) while this job would read less:
    /// what the store holds is at least what this job would make. Without this, two devices
    /// with the images setting on and off would each adopt the other's record, read the PDF
    /// again and record their own, forever.
    fn read_in_full_already(&self, read: &ReadNote, digest: &str) -> Result<bool, crate::store::StoreError> {
        if read.sha256 == digest {
            return Ok(false);
        }
        // Only the record's fields are compared: the bytes are not copied.
        let file = crate::engine::host::VaultFile::unread(read.file.size, read.file.mtime);
        self.record_if_unchanged(&ReadNote {
            path: read.path.clone(),
            file,
            sha256: digest.to_owned(),
            started: read.started,
        })
    }

    /// A scanned page: kept, quiet or copied as a note's chunk would be; else prepared and sent
    /// alone. A page `prepare` refuses is left out, nothing stored for it — never sent as it is
    /// (its bytes may pass Bedrock's limits); it is tried again when the PDF changes.
    #[allow(clippy::too_many_arguments)]
    async fn remember_picture<H: Host, M: Model>(
        &self,
        host: &H,
        model: &M,
        attempt: &NoteAttempt<'_>,
        read: &ReadNote,
        picture: &Picture<'_>,
        facts: &SourceFacts,
        made: &mut NoteMemories,
    ) -> Result<ScanOutcome, JobError> {
        if self.known_picture(host, read, picture.chunk, facts, made).await? {
            return Ok(ScanOutcome::Accounted);
        }
        let image = match prepare(host, picture.bytes).await {
            Ok(image) => image,
            Err(reason) if reason.is_the_file_s() => return Ok(ScanOutcome::LeftOut),
            Err(reason) => return Err(JobError::VaultRead { path: read.path.clone(), reason: reason.to_string() }),
        };
        let prepared = Prepared { image, dated: Some(facts.note_date) };
        self.remember_prepared(host, model, attempt, read, picture, prepared, facts, made).await
    }

    /// Whether the picture's memory is here already (kept, or quiet) or copied from a file
    /// that held the same bytes (a renamed or moved file): then it costs no call.
    async fn known_picture<H: Host>(
        &self,
        host: &H,
        read: &ReadNote,
        chunk: &Chunk,
        facts: &SourceFacts,
        made: &mut NoteMemories,
    ) -> Result<bool, JobError> {
        let (path, hash) = (read.path.as_str(), chunk.content_hash.as_str());
        let position = picture_position(chunk);
        if let Some(existing) = self.store.find_memory_by_content(path, SourceKind::Note, hash)? {
            made.moved.push((existing.id.clone(), position));
            made.memories.push(existing);
            return Ok(true);
        }
        if self.store.quiet_chunks(path)?.contains(hash) {
            made.quiet.push(hash.to_owned());
            return Ok(true);
        }
        if let Some(copied) =
            self.memory_from_elsewhere(host, path, chunk, &position, facts.note_date, read.started).await?
        {
            self.still_owned()?;
            made.memories.push(copied);
            return Ok(true);
        }
        Ok(false)
    }

    /// Sends a prepared picture to the model alone (never batched: its block is most of the
    /// call) and keeps what it remembered.
    #[allow(clippy::too_many_arguments)]
    async fn remember_prepared<H: Host, M: Model>(
        &self,
        host: &H,
        model: &M,
        attempt: &NoteAttempt<'_>,
        read: &ReadNote,
        picture: &Picture<'_>,
        prepared: Prepared,
        facts: &SourceFacts,
        made: &mut NoteMemories,
    ) -> Result<ScanOutcome, JobError> {
        if picture.page.is_none() && self.known_picture(host, read, picture.chunk, facts, made).await? {
            return Ok(ScanOutcome::Accounted);
        }
        if let Some(at) = attempt.pay_after.filter(|at| *at > host.now()) {
            return Ok(ScanOutcome::Ended(self.defer(attempt.queued_path, attempt.generation, at, read.started)?));
        }
        let input = ImageInput {
            image: &prepared.image,
            source_path: &read.path,
            page: picture.page,
            image_date: prepared.dated,
            today: CalendarDate::at(read.started, host.utc_offset_minutes()),
        };
        debug_assert!(u64::from(input.image.width) * u64::from(input.image.height) <= crate::images::MAX_SENT_PIXELS);
        let extraction = extract_image(model, &input).await;
        self.still_owned()?;
        match extraction {
            Ok(crate::agents::ingest::Extraction::Memory(extracted)) => {
                let position = picture_position(picture.chunk);
                let memory = self.new_memory(
                    &read.path,
                    SourceKind::Note,
                    position,
                    picture.chunk,
                    extracted,
                    facts.own_date,
                    read.started,
                )?;
                made.memories.push(memory);
            }
            Ok(crate::agents::ingest::Extraction::Nothing) => made.quiet.push(picture.chunk.content_hash.clone()),
            Err(AgentError::Refused(why)) => return Ok(ScanOutcome::Ended(self.declined(attempt, read, &why)?)),
            Err(error) => return Err(error.into()),
        }
        Ok(ScanOutcome::Accounted)
    }
}

/// A picture to remember: an image file (`page` none) or a PDF's scanned page.
struct Picture<'a> {
    /// Its stand-in chunk: no text, the content hash of the file (and page).
    chunk: &'a Chunk,
    bytes: &'a [u8],
    page: Option<u32>,
}

/// A picture ready for the model, with the day it belongs to.
struct Prepared {
    image: PreparedImage,
    dated: Option<CalendarDate>,
}

/// An image's memory has no place in its file; a scanned page's is its page (1-based).
fn picture_position(chunk: &Chunk) -> Position {
    if chunk.line_start == 0 {
        Position::default()
    } else {
        Position { heading: None, line_start: Some(chunk.line_start), line_end: Some(chunk.line_end) }
    }
}

/// "too large (40.0 MB; images up to 20 MB are read)".
fn too_large(size: u64, limit: u64, kind: &str) -> String {
    let megabytes = size as f64 / MEGABYTE as f64;
    format!("too large ({megabytes:.1} MB; {kind} up to {} MB are read)", limit / MEGABYTE)
}

/// Why a PDF pdf.js could not read is skipped, in words for the status view; `None` when the
/// host has no pdf.js (nothing is recorded then).
fn problem_reason(problem: &PdfProblem, page_count: u32, max_chars: u64) -> Option<String> {
    let message: String = problem.message.trim().chars().take(PDF_MESSAGE_CHARS).collect();
    match problem.kind {
        PdfProblemKind::Encrypted => Some("the PDF is password-protected".into()),
        PdfProblemKind::Broken => Some(format!("the PDF could not be read (pdf.js: {message})")),
        PdfProblemKind::TooManyPages => {
            Some(format!("it has {page_count} pages; PDFs of up to {MAX_PDF_PAGES} pages are remembered"))
        }
        PdfProblemKind::TooMuchText => Some(format!(
            "its text is longer than the size limit ({} KB; a PDF's text is read up to it, like a note)",
            max_chars / 1_024
        )),
        PdfProblemKind::Unavailable => None,
    }
}

/// What the PDF says of itself, shown to the model beside its text (inside the note's fence).
fn pdf_metadata(content: &PdfContent) -> Value {
    let mut metadata = Map::new();
    for (key, value) in [("title", &content.info.title), ("author", &content.info.author)] {
        if let Some(value) = value.as_deref().map(str::trim).filter(|value| !value.is_empty()) {
            metadata.insert(key.into(), json!(value));
        }
    }
    metadata.insert("pages".into(), json!(content.page_count));
    Value::Object(metadata)
}
