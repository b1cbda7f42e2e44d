//! Token usage per local day, agent and device, recorded after every model call. Each device
//! adds only to its own rows, so a merge takes, row by row, the copy with more calls, and the
//! totals are the sum over devices.

use serde::Serialize;

use super::rows::RowReader;
use super::{SqlDriver, Store, StoreError};
use crate::calendar::CalendarDate;
use crate::domain::TokenUsage;

/// Tokens one agent used on one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
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
    /// The device this copy counts its calls for (a random id that device keeps; '' when none).
    pub fn set_device(&self, device: &str) {
        device.clone_into(&mut self.device.borrow_mut());
    }

    /// The device this copy counts its calls for.
    pub fn device(&self) -> String {
        self.device.borrow().clone()
    }

    /// Adds one call's tokens to `agent`'s total for `day` on this device.
    pub fn record_usage(&self, day: CalendarDate, agent: &str, usage: &TokenUsage) -> Result<(), StoreError> {
        let count = |tokens: u64| i64::try_from(tokens).unwrap_or(i64::MAX);
        let device = self.device.borrow().clone();
        self.change(
            "INSERT INTO usage (day, agent, device, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
             VALUES (?, ?, ?, 1, ?, ?, ?, ?)
             ON CONFLICT (day, agent, device) DO UPDATE SET calls = calls + 1,
                input_tokens = input_tokens + excluded.input_tokens,
                output_tokens = output_tokens + excluded.output_tokens,
                cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
                cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens",
            &[
                day.to_string().into(),
                agent.into(),
                device.into(),
                count(usage.input_tokens).into(),
                count(usage.output_tokens).into(),
                count(usage.cache_read_tokens).into(),
                count(usage.cache_write_tokens).into(),
            ],
        )?;
        Ok(())
    }

    /// Usage from `from` to `to` inclusive, by day then agent, summed over the devices.
    pub fn usage_between(&self, from: CalendarDate, to: CalendarDate) -> Result<Vec<UsageRecord>, StoreError> {
        let rows = self.query(
            "SELECT day, agent, sum(calls), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens)
             FROM usage WHERE day BETWEEN ? AND ? GROUP BY day, agent ORDER BY day, agent",
            &[from.to_string().into(), to.to_string().into()],
        )?;
        rows.into_iter().map(|row| read_record(&mut RowReader::new(row))).collect()
    }

    /// Every row, by day, agent and device: what a merge compares.
    pub(super) fn usage_rows(&self) -> Result<Vec<(String, UsageRecord)>, StoreError> {
        let rows = self.query(
            "SELECT device, day, agent, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
             FROM usage ORDER BY day, agent, device",
            &[],
        )?;
        rows.into_iter()
            .map(|row| {
                let mut row = RowReader::new(row);
                Ok((row.text()?, read_record(&mut row)?))
            })
            .collect()
    }

    /// Takes the other copy's row of a day, agent and device when it counted more calls.
    pub(super) fn merge_usage_row(&self, device: &str, record: &UsageRecord) -> Result<bool, StoreError> {
        let count = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
        let changed = self.change(
            "INSERT INTO usage (day, agent, device, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (day, agent, device) DO UPDATE SET calls = excluded.calls,
                input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
                cache_read_tokens = excluded.cache_read_tokens, cache_write_tokens = excluded.cache_write_tokens
             WHERE excluded.calls > usage.calls",
            &[
                record.day.as_str().into(),
                record.agent.as_str().into(),
                device.into(),
                count(record.calls).into(),
                count(record.input_tokens).into(),
                count(record.output_tokens).into(),
                count(record.cache_read_tokens).into(),
                count(record.cache_write_tokens).into(),
            ],
        )?;
        Ok(changed > 0)
    }
}

/// A record's columns in order: day, agent, calls, then the four token counts.
fn read_record(row: &mut RowReader) -> Result<UsageRecord, StoreError> {
    Ok(UsageRecord {
        day: row.text()?,
        agent: row.text()?,
        calls: row.u64()?,
        input_tokens: row.u64()?,
        output_tokens: row.u64()?,
        cache_read_tokens: row.u64()?,
        cache_write_tokens: row.u64()?,
    })
}
