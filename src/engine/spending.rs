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
use crate::llm::{estimate_cost_usd_in, PriceTier, DEFAULT_MODEL_ID};
use crate::store::{SqlDriver, StoreError, UsageRecord};

/// Estimated dollars spent.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Spent {
    pub today: f64,
    pub this_month: f64,
}

/// What remembering some notes will roughly cost, before anything is sent.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IngestEstimate {
    pub notes: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
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
/// Output tokens a token of note text adds: one fact of about 25 tokens per 40 words
/// (about 53 tokens) of text (`agents::ingest::fact_limit`), so roughly one in two.
const FACT_TOKENS_PER_TEXT_TOKEN: f64 = 25.0 / 53.0;

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
    /// The cost of remembering `notes` notes of `bytes` bytes in all, at the connected
    /// model's price (tokens as the core estimates them, characters / 4, times the model's
    /// tokenizer factor: Haiku 5.5 counts the same text as about 30% more tokens), with as many
    /// chunks per call as `ingest_batch_chunks` allows.
    pub fn estimate_ingest(&self, notes: u64, bytes: u64) -> IngestEstimate {
        let model_id = self.priced_model();
        let factor = crate::llm::model_spec(&model_id).map_or(1.0, |spec| spec.tokenizer_factor);
        let model_tokens = |estimated: u64| (estimated as f64 * factor).ceil() as u64;
        // A note is about one chunk here; with batching, notes share a call's prompt.
        let batch = self.settings.borrow().ingest_batch_chunks.max(1) as u64;
        let prompts = if batch == 1 {
            notes * PROMPT_TOKENS_PER_NOTE
        } else {
            notes * TOKENS_PER_PIECE + notes.div_ceil(batch) * PROMPT_TOKENS_PER_BATCH
        };
        let input_tokens = model_tokens(bytes.div_ceil(4) + prompts);
        let text_tokens = bytes.div_ceil(4);
        let output_tokens =
            model_tokens(notes * OUTPUT_TOKENS_PER_NOTE + (text_tokens as f64 * FACT_TOKENS_PER_TEXT_TOKEN) as u64);
        let usage = TokenUsage { input_tokens, output_tokens, ..TokenUsage::default() };
        IngestEstimate {
            notes,
            input_tokens,
            output_tokens,
            // Every ingest call is one chunk or a batch of small ones, far below any long-prompt
            // threshold: the sum is priced at the usual price.
            cost_usd: estimate_cost_usd_in(&model_id, &usage, PriceTier::Base),
            price_known: crate::llm::price_known(&model_id),
            model_id,
        }
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
