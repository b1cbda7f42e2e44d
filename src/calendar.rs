//! Calendar dates without a time-zone database: the host tells the offset from UTC.
//!
//! "Today" and "the day this happened" are local calendar days; the host (JavaScript)
//! knows the user's offset at a given moment (`-new Date().getTimezoneOffset()`), so the
//! core needs only the proleptic Gregorian arithmetic below (Howard Hinnant's algorithms).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::domain::Millis;

const MILLIS_PER_DAY: i64 = 86_400_000;

/// A calendar day, `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CalendarDate {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

impl CalendarDate {
    /// A valid date, or `None` (e.g. 2026-02-30).
    pub fn new(year: i32, month: u32, day: u32) -> Option<Self> {
        let valid = (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month);
        valid.then_some(CalendarDate { year, month, day })
    }

    /// The local date at `at` for a user `utc_offset_minutes` ahead of UTC.
    pub fn at(at: Millis, utc_offset_minutes: i32) -> Self {
        let local = at + i64::from(utc_offset_minutes) * 60_000;
        Self::from_days(local.div_euclid(MILLIS_PER_DAY))
    }

    /// Parses `YYYY-MM-DD`, also the date part of an RFC 3339 time (`2026-02-01T09:00:00Z`).
    pub fn parse(text: &str) -> Option<Self> {
        let date = text.get(..10)?;
        let rest = &text[10..];
        if !(rest.is_empty() || rest.starts_with('T') || rest.starts_with(' ')) {
            return None;
        }
        let mut parts = date.split('-');
        let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
        if year.len() != 4 || month.len() != 2 || day.len() != 2 {
            return None;
        }
        Self::new(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?)
    }

    /// Days since 1970-01-01.
    pub fn to_days(self) -> i64 {
        let year = i64::from(self.year) - i64::from(self.month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let month = i64::from(self.month);
        let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    pub fn from_days(days: i64) -> Self {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let day_of_era = z - era * 146_097;
        let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let mp = (5 * day_of_year + 2) / 153;
        let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (year_of_era + era * 400 + i64::from(month <= 2)) as i32;
        CalendarDate { year, month, day }
    }

    pub fn add_days(self, days: i64) -> Self {
        Self::from_days(self.to_days() + days)
    }

    /// 0 = Monday … 6 = Sunday.
    pub fn weekday(self) -> u32 {
        // 1970-01-01 was a Thursday (3).
        (self.to_days() + 3).rem_euclid(7) as u32
    }
}

pub fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

impl fmt::Display for CalendarDate {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl From<CalendarDate> for String {
    fn from(date: CalendarDate) -> Self {
        date.to_string()
    }
}

impl TryFrom<String> for CalendarDate {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        Self::parse(&text).ok_or_else(|| format!("\"{text}\" is not a YYYY-MM-DD date"))
    }
}

#[cfg(test)]
mod tests {
    use super::CalendarDate;

    #[test]
    fn days_round_trip_over_four_centuries() {
        for days in (-200_000..200_000).step_by(97) {
            assert_eq!(CalendarDate::from_days(days).to_days(), days);
        }
        assert_eq!(CalendarDate::from_days(0).to_string(), "1970-01-01");
        assert_eq!(CalendarDate::parse("2000-02-29").unwrap().add_days(1).to_string(), "2000-03-01");
        assert_eq!(CalendarDate::parse("2026-11-30").unwrap().weekday(), 0, "a Monday");
    }

    #[test]
    fn the_local_day_depends_on_the_offset() {
        // 2026-11-30T20:30:00Z
        let at = 1_796_070_600_000;
        assert_eq!(CalendarDate::at(at, 0).to_string(), "2026-11-30");
        assert_eq!(CalendarDate::at(at, 7 * 60).to_string(), "2026-12-01", "Hanoi, UTC+7");
        assert_eq!(CalendarDate::at(at, -10 * 60).to_string(), "2026-11-30", "Honolulu, UTC−10");
        assert_eq!(CalendarDate::at(at - 21 * 3_600_000, -10 * 60).to_string(), "2026-11-29");
    }

    #[test]
    fn parsing_accepts_dates_and_rfc3339_and_rejects_the_rest() {
        assert_eq!(CalendarDate::parse("2026-02-01T09:00:00+07:00").unwrap().to_string(), "2026-02-01");
        for bad in ["2026-02-30", "2026-13-01", "26-02-01", "2026/02/01", "2026-02-011", ""] {
            assert!(CalendarDate::parse(bad).is_none(), "{bad}");
        }
    }
}
