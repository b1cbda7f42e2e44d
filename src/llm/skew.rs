//! Clock skew, corrected as the AWS SDKs do (`systemClockOffset` in the JS SDK v3,
//! `service_clock_skew` in the Rust SDK): each response's `Date` header says what time AWS
//! thinks it is; when the device's clock is off by five minutes or more, the offset is kept
//! and every later request is signed with the corrected time. The client stays sans-IO: the
//! time still comes from the host, the offset is state learnt from responses.

use std::cell::Cell;

use crate::calendar::CalendarDate;
use crate::domain::Millis;

/// A difference AWS's signature check tolerates (it refuses 15 minutes; the SDKs correct
/// from 5).
const SKEWED_MS: Millis = 5 * 60_000;

#[derive(Debug, Default)]
pub struct ClockOffset {
    offset_ms: Cell<Millis>,
}

impl ClockOffset {
    /// The device's time corrected by what AWS said last.
    pub fn corrected(&self, now: Millis) -> Millis {
        now + self.offset_ms.get()
    }

    pub fn offset_ms(&self) -> Millis {
        self.offset_ms.get()
    }

    /// Learns from a response's `Date` header; true when the offset changed.
    pub fn observe(&self, date_header: Option<&str>, now: Millis) -> bool {
        let Some(server) = date_header.and_then(parse_http_date) else { return false };
        if (server - self.corrected(now)).abs() < SKEWED_MS {
            return false;
        }
        self.offset_ms.set(server - now);
        true
    }
}

/// An IMF-fixdate (`Tue, 01 Dec 2026 12:00:00 GMT`, RFC 9110) as UTC milliseconds.
pub fn parse_http_date(text: &str) -> Option<Millis> {
    let mut parts = text.split_whitespace();
    let _weekday = parts.next()?;
    let day: u32 = parts.next()?.parse().ok()?;
    let month = match parts.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i32 = parts.next()?.parse().ok()?;
    let mut clock = parts.next()?.split(':').map(|part| part.parse::<i64>().ok());
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if parts.next()? != "GMT" || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let days = CalendarDate::new(year, month, day)?.to_days();
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-01T12:00:00Z
    const NOON: Millis = 1_796_126_400_000;

    #[test]
    fn http_dates_are_read_exactly() {
        assert_eq!(parse_http_date("Tue, 01 Dec 2026 12:00:00 GMT"), Some(NOON));
        assert_eq!(parse_http_date("Tue, 01 Dec 2026 12:00:07 GMT"), Some(NOON + 7_000));
        assert_eq!(parse_http_date("Tue, 01 Dec 2026 12:00:00 PST"), None);
        assert_eq!(parse_http_date("yesterday"), None);
    }

    #[test]
    fn an_offset_of_five_minutes_or_more_is_kept_smaller_ones_are_not() {
        let offset = ClockOffset::default();
        assert!(!offset.observe(Some("Tue, 01 Dec 2026 12:00:00 GMT"), NOON + 60_000), "a minute is tolerated");
        assert_eq!(offset.offset_ms(), 0);
        // The device is ten minutes fast.
        assert!(offset.observe(Some("Tue, 01 Dec 2026 12:00:00 GMT"), NOON + 600_000));
        assert_eq!(offset.corrected(NOON + 600_000), NOON);
        assert!(!offset.observe(Some("Tue, 01 Dec 2026 12:00:01 GMT"), NOON + 601_000), "corrected: no change");
        assert!(!offset.observe(None, NOON));
    }
}
