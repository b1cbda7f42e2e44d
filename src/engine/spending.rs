//! Spending under control: what the model cost today and this month (local days, priced at
//! the connected model's price: usage is kept per day and agent, not per model; a row of calls
//! billed at a long-prompt price says so in its name, `metered::usage_tier`), and the
//! user's limits. Reaching a limit pauses work until the next day or month, or until the
//! limit is raised; a question that would pass one is asked about first.

use super::metered::usage_tier;
use super::{Engine, LimitPeriod, Pause};
use crate::agents::AgentError;
use crate::calendar::CalendarDate;
use crate::domain::{Millis, TokenUsage};
use crate::images::MAX_SENT_PIXELS;
use crate::llm::{estimate_cost_usd_in, PriceTier, DEFAULT_MODEL_ID};
use crate::notes::kind::{MAX_IMAGE_BYTES, MAX_PDF_BYTES, MAX_PDF_PAGES};
use crate::notes::FileKind;
use crate::settings_schema::grouped;
use crate::store::{SqlDriver, StoreError, UsageRecord};

/// Estimated dollars spent.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spent {
    pub today: f64,
    pub this_month: f64,
}

/// A vault file to estimate, as the plugin knows it before reading it: its path (whose
/// extension tells its kind), its size and, for a PDF whose pages are known, their number.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestFile {
    pub path: String,
    pub size: u64,
    #[serde(default)]
    pub pages: Option<u32>,
}

/// What remembering some vault files will roughly cost, before anything is sent.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestEstimate {
    pub notes: u64,
    pub pdfs: u64,
    /// The PDFs' pages: their counts where given, else guessed from their sizes.
    pub pdf_pages: u64,
    /// Images Bedrock takes (an image in a format it does not take is never sent).
    pub images: u64,
    /// The images' share of `input_tokens`, each at the size it is sent at.
    pub image_tokens: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
    /// `cost_usd` by kind of file (each kind estimated as if queued alone; they add up to it).
    pub notes_cost_usd: f64,
    pub pdfs_cost_usd: f64,
    pub images_cost_usd: f64,
    pub model_id: String,
    /// False when the model is not in the price table (priced at the highest price).
    pub price_known: bool,
}

/// The ingest prompt and tool schema sent with every chunk (measured on the snapshot
/// `tests/snapshots/prompts/ingest-note-chunk.txt`: about 480 + 250 tokens, rounded up).
const PROMPT_TOKENS_PER_NOTE: u64 = 800;
/// The batched ingest prompt and tool schema, sent once per call of several chunks (measured on
/// the snapshot `tests/snapshots/prompts/ingest-batch.txt`: about 540 + 300 tokens, rounded up).
const PROMPT_TOKENS_PER_BATCH: u64 = 950;
/// What each piece of a batched call adds to its text: its line of dates and fact limit, its
/// fence, file name, heading and properties (the same snapshot: about 25 tokens, rounded up).
const TOKENS_PER_PIECE: u64 = 40;
/// A `record_memory` answer's summary, names, topics and days, and the few facts any chunk
/// may carry (`MIN_FACTS`, about 25 tokens each).
const OUTPUT_TOKENS_PER_NOTE: u64 = 275;
/// A text PDF's page, in tokens: about 350 words of body text (an estimate of text PDFs; a
/// page of slides holds less, a dense paper more, and a scanned page none).
const TEXT_TOKENS_PER_PDF_PAGE: u64 = 500;
/// A PDF whose pages are not known is guessed at one page per this many bytes: a text page's
/// compressed content stream is a few kilobytes, and the fonts and images a file carries
/// spread over its pages.
const PDF_BYTES_PER_PAGE: u64 = 40_000;
/// An image's answer: the summary, what it shows, the text in it, names and the day.
const OUTPUT_TOKENS_PER_IMAGE: u64 = 400;
/// Output tokens a token of note text adds: one fact of about 25 tokens per 40 words
/// (about 53 tokens) of text (`agents::ingest::fact_limit`), so roughly one in two.
const FACT_TOKENS_PER_TEXT_TOKEN: f64 = 25.0 / 53.0;

/// How many times the text its size promised a file may send before it waits for the user.
const SURPRISE_FACTOR: u64 = 4;
/// Text that never waits, whatever its file promised: about 50 pages, a few cents on Haiku.
const UNSURPRISING_TOKENS: u64 = 25_000;

/// The text tokens `estimate_ingest` counts for a PDF of `pages` pages.
pub(super) fn expected_pdf_text_tokens(pages: u32) -> u64 {
    u64::from(pages.max(1)) * TEXT_TOKENS_PER_PDF_PAGE
}

/// The input tokens of the largest image sent: `MAX_SENT_PIXELS`, whatever its shape (a
/// smaller one costs less, but its size is not known before it is read).
fn sent_image_tokens() -> u64 {
    crate::images::image_tokens(u32::try_from(MAX_SENT_PIXELS).unwrap_or(u32::MAX), 1)
}

/// Files sorted by kind, with the text and chunks they make.
#[derive(Debug, Default)]
struct FileCounts {
    notes: u64,
    pdfs: u64,
    pdf_pages: u64,
    images: u64,
    /// Chunks of text (each a piece of an ingest call).
    pieces: u64,
    /// Estimated tokens of text (before the model's tokenizer factor).
    text_tokens: u64,
}

/// One kind's share of an estimate.
struct KindEstimate {
    counts: FileCounts,
    image_tokens: u64,
    input_tokens: u64,
    output_tokens: u64,
    cost_usd: f64,
}

impl FileCounts {
    fn add(&mut self, file: &IngestFile, chunk_tokens: u64) {
        match FileKind::of(&file.path) {
            // Over a limit, a file is not read: the status view gives the reason, at no cost.
            FileKind::Pdf if file.size > MAX_PDF_BYTES || file.pages.is_some_and(|pages| pages > MAX_PDF_PAGES) => {}
            FileKind::Image(_) if file.size > MAX_IMAGE_BYTES => {}
            FileKind::Pdf => {
                let pages = file
                    .pages
                    .map_or_else(|| file.size.div_ceil(PDF_BYTES_PER_PAGE).max(1), u64::from)
                    .min(u64::from(MAX_PDF_PAGES));
                let tokens = pages * TEXT_TOKENS_PER_PDF_PAGE;
                self.pdfs += 1;
                self.pdf_pages += pages;
                self.text_tokens += tokens;
                self.pieces += tokens.div_ceil(chunk_tokens).max(1);
            }
            FileKind::Image(_) => self.images += 1,
            // Never sent: the status view gives the reason, at no cost.
            FileKind::UnsupportedImage(_) => {}
            FileKind::Note | FileKind::Other => {
                self.notes += 1;
                self.text_tokens += file.size.div_ceil(4);
                self.pieces += 1;
            }
        }
    }
}

/// The estimated cost of a usage row (the sum of its calls) on `model_id`, at the price tier
/// its calls were billed at.
pub fn record_cost_usd(model_id: &str, record: &UsageRecord) -> f64 {
    let usage = TokenUsage {
        input_tokens: record.input_tokens,
        output_tokens: record.output_tokens,
        cache_read_tokens: record.cache_read_tokens,
        cache_write_tokens: record.cache_write_tokens,
    };
    estimate_cost_usd_in(model_id, &usage, usage_tier(&record.agent))
}

impl<D: SqlDriver> Engine<D> {
    /// The cost of remembering `files`, at the connected model's price: a note's text by its
    /// bytes (tokens as the core estimates them, characters / 4), a PDF's by its pages (about
    /// `TEXT_TOKENS_PER_PDF_PAGE` each: an estimate of text PDFs), both times the model's
    /// tokenizer factor (Haiku 5.5 counts the same text as about 30% more tokens) and in as
    /// many chunks per call as `ingest_batch_chunks` allows; an image at the size it is sent at
    /// (`images::image_tokens` of `MAX_SENT_PIXELS`) in a call of its own. Scanned PDF pages
    /// are not counted: which pages are scans is known only once the PDF is read.
    pub fn estimate_ingest(&self, files: &[IngestFile]) -> IngestEstimate {
        let model_id = self.priced_model();
        let of_kind = |wanted: fn(FileKind) -> bool| {
            let chosen: Vec<&IngestFile> = files.iter().filter(|file| wanted(FileKind::of(&file.path))).collect();
            self.estimate_files(&model_id, &chosen)
        };
        let notes = of_kind(|kind| matches!(kind, FileKind::Note | FileKind::Other));
        let pdfs = of_kind(|kind| kind == FileKind::Pdf);
        let images = of_kind(|kind| matches!(kind, FileKind::Image(_) | FileKind::UnsupportedImage(_)));
        let input_tokens = notes.input_tokens + pdfs.input_tokens + images.input_tokens;
        let output_tokens = notes.output_tokens + pdfs.output_tokens + images.output_tokens;
        IngestEstimate {
            notes: notes.counts.notes,
            pdfs: pdfs.counts.pdfs,
            pdf_pages: pdfs.counts.pdf_pages,
            images: images.counts.images,
            image_tokens: images.image_tokens,
            input_tokens,
            output_tokens,
            cost_usd: notes.cost_usd + pdfs.cost_usd + images.cost_usd,
            notes_cost_usd: notes.cost_usd,
            pdfs_cost_usd: pdfs.cost_usd,
            images_cost_usd: images.cost_usd,
            price_known: crate::llm::price_known(&model_id),
            model_id,
        }
    }

    /// The estimate of some files of one kind (see `estimate_ingest`).
    fn estimate_files(&self, model_id: &str, files: &[&IngestFile]) -> KindEstimate {
        let chunk_tokens = (self.settings.borrow().max_chunk_tokens as u64).max(1);
        let mut counts = FileCounts::default();
        for file in files {
            counts.add(file, chunk_tokens);
        }
        self.estimate_counts(model_id, counts)
    }

    /// The estimate of what `counts` add up to (see `estimate_ingest`).
    fn estimate_counts(&self, model_id: &str, counts: FileCounts) -> KindEstimate {
        let factor = crate::llm::model_spec(model_id).map_or(1.0, |spec| spec.tokenizer_factor);
        let model_tokens = |estimated: u64| (estimated as f64 * factor).ceil() as u64;
        let batch = (self.settings.borrow().ingest_batch_chunks as u64).max(1);
        // A note is about one chunk here, a PDF as many as its text fills; with batching,
        // chunks share a call's prompt.
        let pieces = counts.pieces;
        let prompts = if batch == 1 {
            pieces * PROMPT_TOKENS_PER_NOTE
        } else {
            pieces * TOKENS_PER_PIECE + pieces.div_ceil(batch) * PROMPT_TOKENS_PER_BATCH
        };
        let image_tokens = counts.images * sent_image_tokens();
        let input_tokens =
            model_tokens(counts.text_tokens + prompts + counts.images * PROMPT_TOKENS_PER_NOTE) + image_tokens;
        let output_tokens = model_tokens(
            pieces * OUTPUT_TOKENS_PER_NOTE
                + (counts.text_tokens as f64 * FACT_TOKENS_PER_TEXT_TOKEN) as u64
                + counts.images * OUTPUT_TOKENS_PER_IMAGE,
        );
        debug_assert!(input_tokens >= image_tokens, "the images' tokens are part of the input");
        let usage = TokenUsage { input_tokens, output_tokens, ..TokenUsage::default() };
        // Every ingest call is one chunk, one image or a batch of small chunks, far below any
        // long-prompt threshold: the sum is priced at the usual price.
        let cost_usd = estimate_cost_usd_in(model_id, &usage, PriceTier::Base);
        KindEstimate { counts, image_tokens, input_tokens, output_tokens, cost_usd }
    }

    /// Why a file whose text to send (`text_tokens` in `pieces` chunks) is far more than its
    /// size promised (`expected_tokens`, as `estimate_ingest` counted it for the bulk
    /// confirmation) waits for the user; `None` when it does not. A PDF of a few kilobytes can
    /// hold megabytes of text (one form drawn on every page): what the user agreed to, or was
    /// not asked about, was the estimate.
    pub(super) fn beyond_the_estimate(
        &self,
        path: &str,
        expected_tokens: u64,
        text_tokens: u64,
        pieces: u64,
    ) -> Option<String> {
        if text_tokens <= expected_tokens.saturating_mul(SURPRISE_FACTOR).max(UNSURPRISING_TOKENS) {
            return None;
        }
        let model_id = self.priced_model();
        let counts = FileCounts { text_tokens, pieces, ..FileCounts::default() };
        let estimate = self.estimate_counts(&model_id, counts);
        let expected = FileCounts { text_tokens: expected_tokens, pieces: 1, ..FileCounts::default() };
        let expected = self.estimate_counts(&model_id, expected);
        Some(format!(
            "{path} holds far more text than its size suggested: remembering it would send about {} tokens \
             (about ${:.2}), where a file like it usually sends about {} tokens; nothing was sent",
            grouped(estimate.input_tokens + estimate.output_tokens),
            estimate.cost_usd,
            grouped(expected.input_tokens + expected.output_tokens)
        ))
    }

    fn priced_model(&self) -> String {
        self.connected_model().unwrap_or_else(|| DEFAULT_MODEL_ID.to_owned())
    }

    /// What the model cost today and this month, in the user's local days.
    pub fn spent(&self, now: Millis, utc_offset_minutes: i32) -> Result<Spent, StoreError> {
        let today = CalendarDate::at(now, utc_offset_minutes);
        let first = CalendarDate::new(today.year, today.month, 1).unwrap_or(today);
        let model = self.priced_model();
        let mut spent = Spent::default();
        for record in self.store.usage_between(first, today)? {
            let cost = record_cost_usd(&model, &record);
            spent.this_month += cost;
            if record.day == today.to_string() {
                spent.today += cost;
            }
        }
        Ok(spent)
    }

    /// Which limit `extra` more dollars would pass, with words for the user; `None` when
    /// none would (or no limit is set).
    fn limit_passed(&self, spent: Spent, extra: f64) -> Option<(LimitPeriod, String)> {
        let settings = self.settings.borrow();
        let (daily, monthly) = (settings.daily_limit_usd, settings.monthly_limit_usd);
        if daily > 0.0 && spent.today + extra >= daily {
            return Some((
                LimitPeriod::Day,
                format!("today's spending limit of ${daily:.2} (${:.2} spent today)", spent.today),
            ));
        }
        if monthly > 0.0 && spent.this_month + extra >= monthly {
            let this_month = spent.this_month;
            return Some((
                LimitPeriod::Month,
                format!("this month's spending limit of ${monthly:.2} (${this_month:.2} spent)"),
            ));
        }
        None
    }

    /// Before work starts another job: pauses the engine when a limit is reached, and lifts a
    /// limit's pause once it no longer holds (a new day, a higher limit). True when work may go on.
    pub(crate) fn within_limits(&self, now: Millis, utc_offset_minutes: i32) -> Result<bool, StoreError> {
        let settings_limit = {
            let settings = self.settings.borrow();
            settings.daily_limit_usd > 0.0 || settings.monthly_limit_usd > 0.0
        };
        let budget_pause = matches!(*self.pause.borrow(), Some(Pause::SpendingLimit { .. }));
        if !settings_limit && !budget_pause {
            return Ok(true);
        }
        match self.limit_passed(self.spent(now, utc_offset_minutes)?, 0.0) {
            Some((period, limit)) => {
                if self.pause.borrow().is_none() || budget_pause {
                    *self.pause.borrow_mut() = Some(Pause::SpendingLimit {
                        period,
                        message: format!(
                            "Memory Agent reached {limit}. Work waits until the limit allows more; to go on now, raise the limit in Settings → Memory Agent → Spending."
                        ),
                    });
                }
                Ok(false)
            }
            None => {
                if budget_pause {
                    *self.pause.borrow_mut() = None;
                }
                Ok(self.pause.borrow().is_none())
            }
        }
    }

    /// A question may cost up to `estimate` dollars: refuses (`AgentError::OverLimit`) when
    /// that would pass a limit, unless the user said to go ahead.
    pub(crate) fn check_question_cost(
        &self,
        estimate: f64,
        now: Millis,
        utc_offset_minutes: i32,
        allow_over_limit: bool,
    ) -> Result<(), AgentError> {
        if allow_over_limit {
            return Ok(());
        }
        if let Some((_, limit)) = self.limit_passed(self.spent(now, utc_offset_minutes)?, estimate) {
            return Err(AgentError::OverLimit(format!(
                "This question may cost up to ${estimate:.2}, which would pass {limit}. Ask anyway?"
            )));
        }
        Ok(())
    }
}
