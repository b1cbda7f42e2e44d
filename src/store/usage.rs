//! Token usage per local day and agent, recorded after every model call.

use serde::Serialize;

use super::rows::RowReader;
use super::{SqlDriver, Store, StoreError};
use crate::calendar::CalendarDate;
use crate::domain::TokenUsage;

/// Tokens one agent used on one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageRecord {
    pub day: String,
    pub agent: String,
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}

impl<D: SqlDriver> Store<D> {
    /// Adds one call's tokens to `agent`'s total for `day`.
    pub fn record_usage(&self, day: CalendarDate, agent: &str, usage: &TokenUsage) -> Result<(), StoreError> {
        let count = |tokens: u64| i64::try_from(tokens).unwrap_or(i64::MAX);
        self.change(
            "INSERT INTO usage (day, agent, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
             VALUES (?, ?, 1, ?, ?, ?, ?)
             ON CONFLICT (day, agent) DO UPDATE SET calls = calls + 1,
                input_tokens = input_tokens + excluded.input_tokens,
                output_tokens = output_tokens + excluded.output_tokens,
                cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
                cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens",
            &[
                day.to_string().into(),
                agent.into(),
                count(usage.input_tokens).into(),
                count(usage.output_tokens).into(),
                count(usage.cache_read_tokens).into(),
                count(usage.cache_write_tokens).into(),
            ],
        )?;
        Ok(())
    }

    /// Usage from `from` to `to` inclusive, by day then agent.
    pub fn usage_between(&self, from: CalendarDate, to: CalendarDate) -> Result<Vec<UsageRecord>, StoreError> {
        let rows = self.query(
            "SELECT day, agent, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
             FROM usage WHERE day BETWEEN ? AND ? ORDER BY day, agent",
            &[from.to_string().into(), to.to_string().into()],
        )?;
        rows.into_iter()
            .map(|row| {
                let mut row = RowReader::new(row);
                Ok(UsageRecord {
                    day: row.text()?,
                    agent: row.text()?,
                    calls: row.u64()?,
                    input_tokens: row.u64()?,
                    output_tokens: row.u64()?,
                    cache_read_tokens: row.u64()?,
                    cache_write_tokens: row.u64()?,
                })
            })
            .collect()
    }
}
