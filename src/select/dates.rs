//! Dates in a question, in English and Vietnamese, as ranges of calendar days.
//!
//! A small hand-written reader over the question's folded words: each pattern is tried at
//! each word, left to right, and a match takes its words so they do not become keywords.
//! Absolute dates follow the user's `DateOrder` (ISO `2026-02-01` always means 1 February);
//! relative ones count from `today`, the user's local date, handed in. Past-leaning on
//! purpose: "in March" and "February 1" mean the most recent ones not after today, "on
//! Tuesday" the most recent Tuesday before today — people ask their memory about the past.

use super::plan::DateOrder;
use crate::calendar::{days_in_month, CalendarDate};
use crate::words::{words, words_ending, Word};

/// First and last day, inclusive.
pub type DateRange = (CalendarDate, CalendarDate);

/// A date expression: the days it means and the words `start..end` it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub range: DateRange,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Day,
    Week,
    Month,
    Year,
}

/// Finds every date expression among `words`, skipping words already `taken` (by names).
pub fn find_dates(words: &[Word], taken: &[bool], today: CalendarDate, order: DateOrder) -> Vec<Found> {
    let reader = Reader { words, taken, today, order };
    let mut found = Vec::new();
    let mut index = 0;
    while index < words.len() {
        match reader.read_at(index) {
            Some((range, length)) => {
                let mut range = range;
                // "since March": from then until today.
                if reader.word(index.wrapping_sub(1)) == Some("since")
                    || (reader.word(index.wrapping_sub(1)) == Some("tu")
                        && reader.word(index.wrapping_sub(2)) == Some("ke"))
                {
                    range.1 = range.1.max(today);
                }
                found.push(Found { range, start: index, end: index + length });
                index += length;
            }
            None => index += 1,
        }
    }
    found
}

struct Reader<'a> {
    words: &'a [Word],
    taken: &'a [bool],
    today: CalendarDate,
    order: DateOrder,
}

type Read = Option<(DateRange, usize)>;

impl Reader<'_> {
    /// The folded word at `index`, unless it is out of range or taken by a name.
    fn word(&self, index: usize) -> Option<&str> {
        if self.taken.get(index).copied().unwrap_or(false) {
            return None;
        }
        self.words.get(index).map(|word| word.folded.as_str())
    }

    fn is(&self, index: usize, options: &[&str]) -> bool {
        self.word(index).is_some_and(|word| options.contains(&word))
    }

    /// A day-of-month or year number, also an English ordinal ("1st", "22nd").
    fn number(&self, index: usize) -> Option<u32> {
        let word = self.word(index)?;
        let digits = ["st", "nd", "rd", "th"].iter().find_map(|suffix| word.strip_suffix(suffix)).unwrap_or(word);
        if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }

    fn read_at(&self, i: usize) -> Read {
        let word = self.word(i)?;
        self.relative_day(i, word)
            .or_else(|| self.anchored(i))
            .or_else(|| self.english_relative(i, word))
            .or_else(|| self.ago(i))
            .or_else(|| self.vietnamese_relative(i, word))
            .or_else(|| self.weekday(i))
            .or_else(|| self.numeric(word).map(|range| (range, 1)))
            .or_else(|| self.vietnamese_calendar(i, word))
            .or_else(|| self.month_name(i))
            .or_else(|| self.year_alone(i))
    }

    fn single(&self, offset: i64, length: usize) -> Read {
        let day = self.today.add_days(offset);
        Some(((day, day), length))
    }

    /// today, yesterday, the day before yesterday — hôm nay, hôm qua, hôm kia.
    fn relative_day(&self, i: usize, word: &str) -> Read {
        match word {
            "today" | "tonight" => self.single(0, 1),
            "yesterday" => self.single(-1, 1),
            "day" if self.is(i + 1, &["before"]) && self.is(i + 2, &["yesterday"]) => self.single(-2, 3),
            "hom" | "bua" => match self.word(i + 1)? {
                "nay" => self.single(0, 2),
                "qua" => self.single(-1, 2),
                "kia" => self.single(-2, 2),
                _ => None,
            },
            _ => None,
        }
    }

    /// The week before 3 August 2023 / two weeks before 11/8 / the Sunday before October 25 /
    /// last weekend before April 10, 2023 / the day after the 1st of May: a span counted from
    /// another date rather than from today. The span reaches the anchor day itself: what
    /// happened "last weekend" is often told, and dated, on the day named ("Last weekend I ran
    /// a 5K", written on 10 April).
    fn anchored(&self, i: usize) -> Read {
        let (span, side_at) = self.anchored_span(i)?;
        let after = match self.word(side_at)? {
            "before" => false,
            "after" => true,
            _ => return None,
        };
        // The anchor is a date of its own, read from where it starts ("the week before last"
        // has none: "last" alone is no date).
        let ((first, last), anchor_length) = self.read_at(side_at + 1)?;
        let range = match (span, after) {
            (Span::Units(count, unit), false) => (first.add_days(-i64::from(count) * unit_days(unit)), first),
            (Span::Units(count, unit), true) => (last, last.add_days(i64::from(count) * unit_days(unit))),
            (Span::Weekday(weekday), false) => (recent_weekday(first, weekday), first),
            (Span::Weekday(weekday), true) => (last, next_weekday(last, weekday)),
            (Span::Weekend, false) => (recent_weekday(first, 5), first),
            (Span::Weekend, true) => (last, next_weekday(last, 5).add_days(1)),
        };
        debug_assert!(range.0 <= range.1, "an anchored span runs forward");
        Some((range, side_at + 1 + anchor_length - i))
    }

    /// The span before "before" or "after" in an anchored date, and where that word is:
    /// `[N] day(s)/week(s)/month(s)/year(s)`, a weekday, `[last] weekend`.
    fn anchored_span(&self, i: usize) -> Option<(Span, usize)> {
        let (i, last) = if self.is(i, &["last", "previous"]) { (i + 1, true) } else { (i, false) };
        let word = self.word(i)?;
        if word == "weekend" {
            return Some((Span::Weekend, i + 1));
        }
        if let Some(weekday) = weekday_name(word) {
            return Some((Span::Weekday(weekday), i + 1));
        }
        if let Some(unit) = unit(word) {
            return Some((Span::Units(1, unit), i + 1));
        }
        let counted = count(word).filter(|_| !last)?;
        let unit = unit(self.word(i + 1)?)?;
        Some((Span::Units(counted, unit), i + 2))
    }

    /// last week / this month / past year / last weekend / last March / last Tuesday /
    /// the past 3 days / this morning / the week before last.
    fn english_relative(&self, i: usize, word: &str) -> Read {
        let today = self.today;
        match word {
            "last" | "previous" | "past" => {
                let next = self.word(i + 1)?;
                if let Some(unit) = unit(next) {
                    let range = match (word, unit) {
                        ("past", Unit::Week) => (today.add_days(-7), today),
                        ("past", Unit::Month) => (today.add_days(-30), today),
                        ("past", Unit::Year) => (today.add_days(-365), today),
                        (_, Unit::Week) => week_of(today.add_days(-7)),
                        (_, Unit::Month) => month_back(today, 1),
                        (_, Unit::Year) => year_range(today.year.checked_sub(1)?)?,
                        (_, Unit::Day) => return None,
                    };
                    return Some((range, 2));
                }
                if next == "weekend" {
                    let monday = week_of(today).0;
                    return Some(((monday.add_days(-2), monday.add_days(-1)), 2));
                }
                if let Some(weekday) = weekday_name(next) {
                    let day = recent_weekday(today, weekday);
                    return Some(((day, day), 2));
                }
                if let Some(month) = month_name(next) {
                    // "last March": the latest March before this month.
                    let year = if month < today.month { today.year } else { today.year.checked_sub(1)? };
                    return Some((month_range(year, month)?, 2));
                }
                // "the last 3 days", "the past few weeks"
                let count = count(self.word(i + 1)?)?;
                let unit = unit(self.word(i + 2)?)?;
                let days = i64::from(count) * unit_days(unit);
                Some(((today.add_days(-days), today), 3))
            }
            "this" => {
                let next = self.word(i + 1)?;
                let range = match next {
                    "week" => week_of(today),
                    "month" => month_back(today, 0),
                    "year" => year_range(today.year)?,
                    "weekend" => {
                        let monday = week_of(today).0;
                        (monday.add_days(5), monday.add_days(6))
                    }
                    "morning" | "afternoon" | "evening" => (today, today),
                    _ => {
                        let weekday = weekday_name(next)?;
                        let day = week_of(today).0.add_days(i64::from(weekday));
                        (day, day)
                    }
                };
                Some((range, 2))
            }
            "week" if self.is(i + 1, &["before"]) && self.is(i + 2, &["last"]) => {
                Some((week_of(today.add_days(-14)), 3))
            }
            _ => None,
        }
    }

    /// 3 days ago, two months ago, a week ago — 2 tháng trước, cách đây 3 ngày.
    fn ago(&self, i: usize) -> Read {
        let (start, count_at) = if self.is(i, &["cach"]) && self.is(i + 1, &["day"]) { (2, i + 2) } else { (0, i) };
        let count = count(self.word(count_at)?)?;
        let mut at = count_at + 1;
        if self.is(at, &["of"]) {
            at += 1; // "a couple of days ago"
        }
        let unit = unit(self.word(at)?)?;
        let ends = if start == 2 {
            // "cách đây 2 tháng" needs no closing word; it may have one.
            if self.is(at + 1, &["truoc", "roi"]) {
                at + 2
            } else {
                at + 1
            }
        } else if self.is(at + 1, &["ago", "truoc", "roi"]) {
            at + 2
        } else {
            return None;
        };
        Some((ago(self.today, count, unit)?, ends - i))
    }

    /// tuần trước, tháng này, năm ngoái, tuần trước nữa, tuần qua.
    fn vietnamese_relative(&self, i: usize, word: &str) -> Read {
        let unit = match word {
            "tuan" => Unit::Week,
            "thang" => Unit::Month,
            "nam" => Unit::Year,
            _ => return None,
        };
        let today = self.today;
        match self.word(i + 1)? {
            "nay" => {
                let range = match unit {
                    Unit::Week => week_of(today),
                    Unit::Month => month_back(today, 0),
                    _ => year_range(today.year)?,
                };
                Some((range, 2))
            }
            "truoc" | "roi" | "ngoai" => {
                // "tuần trước nữa": the one before that.
                let (back, length) = if self.is(i + 2, &["nua"]) { (2, 3) } else { (1, 2) };
                Some((ago(today, back, unit)?, length))
            }
            "vua" if self.is(i + 2, &["roi", "qua"]) => Some((ago(today, 1, unit)?, 3)),
            "qua" => {
                let days = unit_days(unit);
                Some(((today.add_days(-days), today), 2))
            }
            _ => None,
        }
    }

    /// Tuesday, Tuesday last week — thứ Ba, thứ 3 tuần trước, Chủ nhật.
    fn weekday(&self, i: usize) -> Read {
        let (weekday, mut length) = match self.word(i)? {
            "thu" => (vietnamese_weekday(self.word(i + 1)?)?, 2),
            "chu" if self.is(i + 1, &["nhat"]) => (6, 2),
            "cn" => (6, 1),
            other => (weekday_name(other)?, 1),
        };
        let after = i + length;
        let week_start = if (self.is(after, &["last"]) && self.is(after + 1, &["week"]))
            || (self.is(after, &["tuan"]) && self.is(after + 1, &["truoc", "roi"]))
        {
            length += 2;
            Some(week_of(self.today.add_days(-7)).0)
        } else if (self.is(after, &["this"]) && self.is(after + 1, &["week"]))
            || (self.is(after, &["tuan"]) && self.is(after + 1, &["nay"]))
        {
            length += 2;
            Some(week_of(self.today).0)
        } else {
            None
        };
        let day = match week_start {
            Some(monday) => monday.add_days(i64::from(weekday)),
            None => recent_weekday(self.today, weekday),
        };
        Some(((day, day), length))
    }

    /// 2026-02-01, 1/2/2026, 1.2.26, 3/2025, 2026-02, 1/2.
    fn numeric(&self, word: &str) -> Option<DateRange> {
        if !word.contains(['/', '-', '.']) {
            return None;
        }
        let parts: Vec<&str> = word.split(['/', '-', '.']).collect();
        let numbers: Vec<u32> = parts.iter().map(|part| part.parse().ok()).collect::<Option<_>>()?;
        let long = |index: usize| parts[index].len() == 4;
        // "3.5" and "3-4" are far more often a decimal or a span than a date; "3/4" less so.
        if parts.len() == 2 && !word.contains('/') && !long(0) {
            return None;
        }
        match numbers.as_slice() {
            [year, month, day] if long(0) => single_day(CalendarDate::new(*year as i32, *month, *day)?),
            [first, second, year] if parts[2].len() == 2 || long(2) => {
                let year = if parts[2].len() == 2 { 2000 + *year as i32 } else { *year as i32 };
                let (day, month) = self.order.day_month(*first, *second);
                CalendarDate::new(year, month, day).or_else(|| CalendarDate::new(year, day, month)).and_then(single_day)
            }
            [year, month] if long(0) => month_range(*year as i32, *month),
            [month, year] if long(1) => month_range(*year as i32, *month),
            [first, second] if parts[0].len() <= 2 && parts[1].len() <= 2 => {
                let (day, month) = self.order.day_month(*first, *second);
                recent_day(self.today, month, day).or_else(|| recent_day(self.today, day, month)).and_then(single_day)
            }
            _ => None,
        }
    }

    /// ngày 1 tháng 2 năm 2026, 1 tháng 2, tháng 3, tháng 3 năm 2025, tháng 12 năm ngoái,
    /// năm 2025.
    fn vietnamese_calendar(&self, i: usize, word: &str) -> Read {
        if let Some(day) = self.number(i).filter(|day| (1..=31).contains(day)) {
            if self.is(i + 1, &["thang"]) {
                let month = self.number(i + 2).filter(|month| (1..=12).contains(month))?;
                return match self.year_after(i + 3) {
                    Some((year, length)) => Some((single_day(CalendarDate::new(year, month, day)?)?, 3 + length)),
                    None => Some((single_day(recent_day(self.today, month, day)?)?, 3)),
                };
            }
            return None;
        }
        match word {
            "thang" => {
                let month = self.number(i + 1).filter(|month| (1..=12).contains(month))?;
                match self.year_after(i + 2) {
                    Some((year, length)) => Some((month_range(year, month)?, 2 + length)),
                    None => Some((recent_month(self.today, month)?, 2)),
                }
            }
            "nam" => {
                let year = self.number(i + 1).filter(|year| (1000..=2999).contains(year))?;
                Some((year_range(year as i32)?, 2))
            }
            _ => None,
        }
    }

    /// `năm 2026`, `năm ngoái`, `năm nay` after a Vietnamese day or month.
    fn year_after(&self, i: usize) -> Option<(i32, usize)> {
        if !self.is(i, &["nam"]) {
            return None;
        }
        match self.word(i + 1)? {
            "nay" => Some((self.today.year, 2)),
            "ngoai" | "truoc" | "roi" => Some((self.today.year.checked_sub(1)?, 2)),
            _ => {
                let year = self.number(i + 1).filter(|year| (1000..=2999).contains(year))?;
                Some((year as i32, 2))
            }
        }
    }

    /// 1 Feb 2026, 1st of February, February 1, Feb 1st 2026, Feb 2026, in March.
    fn month_name(&self, i: usize) -> Read {
        let year_at = |index: usize| self.number(index).filter(|year| (1000..=2999).contains(year));
        if let Some(day) = self.number(i).filter(|day| (1..=31).contains(day)) {
            let at = if self.is(i + 1, &["of"]) { i + 2 } else { i + 1 };
            let month = month_name(self.word(at)?)?;
            return match year_at(at + 1) {
                Some(year) => Some((single_day(CalendarDate::new(year as i32, month, day)?)?, at + 2 - i)),
                None => Some((single_day(recent_day(self.today, month, day)?)?, at + 1 - i)),
            };
        }
        let month = month_name(self.word(i)?)?;
        if let Some(day) = self.number(i + 1).filter(|day| (1..=31).contains(day)) {
            return match year_at(i + 2) {
                Some(year) => Some((single_day(CalendarDate::new(year as i32, month, day)?)?, 3)),
                None => Some((single_day(recent_day(self.today, month, day)?)?, 2)),
            };
        }
        if let Some(year) = year_at(i + 1) {
            return Some((month_range(year as i32, month)?, 2));
        }
        // "may" alone is far more often the verb: only after a preposition.
        let introduced = self.is(i.wrapping_sub(1), &["in", "of", "during", "since", "early", "late", "mid", "until"]);
        if month == 5 && !introduced {
            return None;
        }
        Some((recent_month(self.today, month)?, 1))
    }

    /// A year on its own: "in 2025".
    fn year_alone(&self, i: usize) -> Read {
        let word = self.word(i)?;
        if word.len() != 4 {
            return None;
        }
        let year = self.number(i).filter(|year| (1900..=2100).contains(year))?;
        Some((year_range(year as i32)?, 1))
    }
}

/// Whether a folded word names a month, a weekday or a relative day, so a known name made
/// only of such words ("June", "Today") needs more than the word itself to count as a name.
pub fn is_date_word(word: &str) -> bool {
    month_name(word).is_some()
        || weekday_name(word).is_some()
        || matches!(word, "today" | "yesterday" | "tonight" | "tomorrow" | "weekend")
}

/// Words that introduce a date: after one of them, "June" is the month.
pub const DATE_PREPOSITIONS: &[&str] =
    &["in", "on", "since", "during", "last", "this", "next", "of", "until", "early", "late", "mid", "before", "after"];

impl DateOrder {
    /// (day, month) from two numbers written in this order.
    fn day_month(self, first: u32, second: u32) -> (u32, u32) {
        match self {
            DateOrder::DayMonth => (first, second),
            DateOrder::MonthDay => (second, first),
        }
    }
}

fn single_day(day: CalendarDate) -> Option<DateRange> {
    Some((day, day))
}

fn unit(word: &str) -> Option<Unit> {
    match word {
        "day" | "days" | "ngay" => Some(Unit::Day),
        "week" | "weeks" | "tuan" => Some(Unit::Week),
        "month" | "months" | "thang" => Some(Unit::Month),
        "year" | "years" | "nam" => Some(Unit::Year),
        _ => None,
    }
}

fn unit_days(unit: Unit) -> i64 {
    match unit {
        Unit::Day => 1,
        Unit::Week => 7,
        Unit::Month => 30,
        Unit::Year => 365,
    }
}

/// A small count in digits or words (English or Vietnamese).
fn count(word: &str) -> Option<u32> {
    if let Ok(number) = word.parse::<u32>() {
        return (1..=400).contains(&number).then_some(number);
    }
    let number = match word {
        "a" | "an" | "one" | "mot" => 1,
        "two" | "couple" | "hai" => 2,
        "three" | "few" | "several" | "ba" | "vai" => 3,
        "four" | "bon" => 4,
        "five" | "nam" => 5,
        "six" | "sau" => 6,
        "seven" | "bay" => 7,
        "eight" | "tam" => 8,
        "nine" | "chin" => 9,
        "ten" | "muoi" => 10,
        "eleven" => 11,
        "twelve" => 12,
        _ => return None,
    };
    Some(number)
}

/// 1 = January; English names and their usual abbreviations.
fn month_name(word: &str) -> Option<u32> {
    if let Some(index) = MONTH_NAMES.iter().position(|month| month.eq_ignore_ascii_case(word)) {
        return Some(index as u32 + 1);
    }
    let short = match word {
        "jan" => 1,
        "feb" => 2,
        "mar" => 3,
        "apr" => 4,
        "jun" => 6,
        "jul" => 7,
        "aug" => 8,
        "sep" | "sept" => 9,
        "oct" => 10,
        "nov" => 11,
        "dec" => 12,
        _ => return None,
    };
    Some(short)
}

/// 0 = Monday. Full names only: "sat", "sun" and "wed" are words too.
fn weekday_name(word: &str) -> Option<u32> {
    let day = match word {
        "monday" => 0,
        "tuesday" | "tues" => 1,
        "wednesday" | "weds" => 2,
        "thursday" | "thurs" => 3,
        "friday" => 4,
        "saturday" => 5,
        "sunday" => 6,
        _ => return None,
    };
    Some(day)
}

/// The word after "thứ": hai/2 = Monday … bảy/7 = Saturday.
fn vietnamese_weekday(word: &str) -> Option<u32> {
    let day = match word {
        "hai" | "2" => 0,
        "ba" | "3" => 1,
        "tu" | "4" => 2,
        "nam" | "5" => 3,
        "sau" | "6" => 4,
        "bay" | "7" => 5,
        _ => return None,
    };
    Some(day)
}

/// Monday to Sunday around `day`.
fn week_of(day: CalendarDate) -> DateRange {
    let monday = day.add_days(-i64::from(day.weekday()));
    (monday, monday.add_days(6))
}

fn month_range(year: i32, month: u32) -> Option<DateRange> {
    let first = CalendarDate::new(year, month, 1)?;
    let last = CalendarDate::new(year, month, days_in_month(year, month))?;
    Some((first, last))
}

fn year_range(year: i32) -> Option<DateRange> {
    Some((CalendarDate::new(year, 1, 1)?, CalendarDate::new(year, 12, 31)?))
}

/// The calendar month `back` months before today's.
fn month_back(today: CalendarDate, back: u32) -> DateRange {
    month_shift(today, -i64::from(back))
}

/// The calendar month `step` months from today's (before it when negative).
fn month_shift(today: CalendarDate, step: i64) -> DateRange {
    let index = i64::from(today.year) * 12 + i64::from(today.month) - 1 + step;
    let (year, month) = (index.div_euclid(12), index.rem_euclid(12) as u32 + 1);
    // Always valid for any date a host can hand in: the month is 1..=12.
    i32::try_from(year).ok().and_then(|year| month_range(year, month)).unwrap_or((today, today))
}

/// The latest `month` not after today's month.
fn recent_month(today: CalendarDate, month: u32) -> Option<DateRange> {
    let year = if month <= today.month { today.year } else { today.year.checked_sub(1)? };
    month_range(year, month)
}

/// The latest `month`/`day` not after today (29 February looks back to a leap year).
fn recent_day(today: CalendarDate, month: u32, day: u32) -> Option<CalendarDate> {
    (0..8)
        .filter_map(|back| today.year.checked_sub(back))
        .filter_map(|year| CalendarDate::new(year, month, day))
        .find(|date| *date <= today)
}

/// The latest `weekday` before today.
fn recent_weekday(today: CalendarDate, weekday: u32) -> CalendarDate {
    let back = (i64::from(today.weekday()) - i64::from(weekday)).rem_euclid(7);
    today.add_days(-if back == 0 { 7 } else { back })
}

/// The first `weekday` after `day`.
fn next_weekday(day: CalendarDate, weekday: u32) -> CalendarDate {
    let ahead = (i64::from(weekday) - i64::from(day.weekday())).rem_euclid(7);
    day.add_days(if ahead == 0 { 7 } else { ahead })
}

/// How far an anchored date reaches from its anchor.
#[derive(Debug, Clone, Copy)]
enum Span {
    Units(u32, Unit),
    Weekday(u32),
    Weekend,
}

/// The day, week (Monday–Sunday), month or year `count` units before today's.
fn ago(today: CalendarDate, count: u32, unit: Unit) -> Option<DateRange> {
    match unit {
        Unit::Day => single_day(today.add_days(-i64::from(count))),
        Unit::Week => Some(week_of(today.add_days(-7 * i64::from(count)))),
        Unit::Month => Some(month_back(today, count)),
        Unit::Year => year_range(today.year.checked_sub(count as i32)?),
    }
}

/// The relative dates of a written text ("yesterday", "last week", "two days ago", "next
/// month", "last Fri") and the days each means, counted from `written_on`, the day the text was
/// written. Only what the writing day decides: absolute dates say themselves, a bare weekday
/// ("on Friday") and "in three months" may be either side of it (a plan, or how long something
/// took), and vague spans ("a few days ago", "the past week") have no days to give.
fn relative_dates(words: &[Word], written_on: CalendarDate) -> Vec<Found> {
    let reader = Reader { words, taken: &[], today: written_on, order: DateOrder::DayMonth };
    let mut found = Vec::new();
    let mut index = 0;
    while index < words.len() {
        match reader.written_relative(index) {
            Some((range, length)) => {
                debug_assert!(range.0 <= range.1 && length > 0, "a relative date is a span of words and days");
                found.push(Found { range, start: index, end: index + length });
                index += length;
            }
            None => index += 1,
        }
    }
    found
}

/// `text` with the days each relative date in it means written after it, counted from
/// `written_on` (`relative_dates`): "I went yesterday [= 7 May 2023]". A reader of the passage (a
/// model) counts from the wrong day when all it knows is the day the events happened; the
/// marker tells the added days from the note's own words. `None` when there is none to resolve.
pub fn with_relative_dates(text: &str, written_on: CalendarDate) -> Option<String> {
    let mut out = String::new();
    let mut resolved_any = false;
    for line in text.split_inclusive('\n') {
        match may_hold_relative_date(line).then(|| line_with_relative_dates(line, written_on)).flatten() {
            Some(resolved) => {
                out.push_str(&resolved);
                resolved_any = true;
            }
            None => out.push_str(line),
        }
    }
    resolved_any.then_some(out)
}

/// Whether `line` may hold a relative date `relative_dates` reads: one of the words each holds
/// ("yesterday", "ago", or "last", "next" or "this" with a unit or a weekday). A line without is
/// copied as it is, without being split into words: passages are read for every question, and in
/// a conversation nearly every line says "this" or "next" in some other sense.
fn may_hold_relative_date(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|word| lower.contains(word));
    has(&["yesterday", "tomorrow", "ago"])
        || (has(&["last", "next", "this"])
            && has(&["week", "month", "year", "day", "night", "mon", "tue", "wed", "thu", "fri", "sat", "sun"]))
}

/// One line of `with_relative_dates`.
fn line_with_relative_dates(line: &str, written_on: CalendarDate) -> Option<String> {
    let spans = words_ending(line);
    let words: Vec<Word> = spans.iter().map(|(word, _)| word.clone()).collect();
    let found = relative_dates(&words, written_on);
    if found.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(line.len() + found.len() * 24);
    let mut copied = 0;
    for date in found {
        let end = spans[date.end - 1].1;
        out.push_str(&line[copied..end]);
        out.push_str(&format!(" [= {}]", spoken_range(date.range)));
        copied = end;
    }
    out.push_str(&line[copied..]);
    Some(out)
}

/// The one day a line of text dates itself by (`full_date`).
pub fn line_date(line: &str, order: DateOrder) -> Option<CalendarDate> {
    full_date(&words(line), order)
}

/// The one day a line of text dates itself by ("# Monday 8 May 2023", "Conversation on 08 May
/// 2023, 13:56", "2023-05-08"): a date with its day, month and year, when the line names exactly
/// one. A date without a year, or a weekday, is no writing day: it is counted from another.
fn full_date(words: &[Word], order: DateOrder) -> Option<CalendarDate> {
    // Two readers a century apart: a date that reads the same from both names its year.
    let far_apart = [CalendarDate::new(1950, 1, 1)?, CalendarDate::new(2050, 7, 1)?];
    let [early, late] = far_apart.map(|today| Reader { words, taken: &[], today, order });
    let mut days = Vec::new();
    let mut index = 0;
    while index < words.len() {
        let read = |reader: &Reader<'_>| {
            let word = reader.word(index)?;
            reader.numeric(word).map(|range| (range, 1)).or_else(|| reader.month_name(index))
        };
        match (read(&early), read(&late)) {
            (Some((range, length)), Some(other)) if other == (range, length) && range.0 == range.1 => {
                days.push(range.0);
                index += length;
            }
            (Some((_, length)), _) => index += length,
            _ => index += 1,
        }
    }
    days.dedup();
    match days.as_slice() {
        [day] => Some(*day),
        _ => None,
    }
}

/// Days as a reader says them: `7 May 2023`, `3–4 June 2023`, `29 May – 4 June 2023`, `June
/// 2023`, `2022`.
fn spoken_range((first, last): DateRange) -> String {
    let month = |date: CalendarDate| MONTH_NAMES[date.month as usize - 1];
    let whole_month = first.day == 1 && last.day == days_in_month(last.year, last.month);
    if first == last {
        format!("{} {} {}", first.day, month(first), first.year)
    } else if whole_month && (first.month, first.year) == (last.month, last.year) {
        format!("{} {}", month(first), first.year)
    } else if whole_month && first.year == last.year && (first.month, last.month) == (1, 12) {
        first.year.to_string()
    } else if (first.month, first.year) == (last.month, last.year) {
        format!("{}–{} {} {}", first.day, last.day, month(first), first.year)
    } else if first.year == last.year {
        format!("{} {} – {} {} {}", first.day, month(first), last.day, month(last), first.year)
    } else {
        format!("{} {} {} – {} {} {}", first.day, month(first), first.year, last.day, month(last), last.year)
    }
}

/// The months' English names, January first: how dates are written out for a reader, and the
/// month words a question's dates are read by.
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
impl Reader<'_> {
    /// A relative date in written text (`relative_dates`), counted from `self.today`, the day
    /// it was written.
    fn written_relative(&self, i: usize) -> Read {
        let today = self.today;
        let word = self.word(i)?;
        match word {
            "yesterday" => self.single(-1, 1),
            "tomorrow" => self.single(1, 1),
            "day" if self.is(i + 1, &["before"]) && self.is(i + 2, &["yesterday"]) => self.single(-2, 3),
            "day" if self.is(i + 1, &["after"]) && self.is(i + 2, &["tomorrow"]) => self.single(2, 3),
            // "the last week" is the past seven days, not the calendar week before this one.
            "last" | "next" | "this" if !self.is(i.wrapping_sub(1), &["the"]) => {
                let step: i64 = match word {
                    "last" => -1,
                    "next" => 1,
                    _ => 0,
                };
                let next = self.word(i + 1)?;
                let range = match next {
                    "night" if step == -1 => (today.add_days(-1), today.add_days(-1)),
                    "week" => week_of(today.add_days(7 * step)),
                    "weekend" => weekend_of(today, step),
                    "month" => month_shift(today, step),
                    "year" => year_range(today.year.checked_add(step as i32)?)?,
                    _ => {
                        let weekday = weekday_name(next).or_else(|| short_weekday(next))?;
                        let day = match step {
                            -1 => recent_weekday(today, weekday),
                            1 => next_weekday(today, weekday),
                            _ => week_of(today).0.add_days(i64::from(weekday)),
                        };
                        (day, day)
                    }
                };
                Some((range, 2))
            }
            _ => {
                let count = exact_count(word)?;
                let mut at = i + 1;
                if self.is(at, &["of"]) {
                    at += 1; // "a couple of days ago"
                }
                if self.is(at, &["weekends"]) && self.is(at + 1, &["ago"]) {
                    // Two weekends ago: the weekend before last.
                    return Some((weekend_of(today, -i64::from(count)), at + 2 - i));
                }
                let unit = unit(self.word(at)?)?;
                if !self.is(at + 1, &["ago"]) {
                    return None;
                }
                Some((ago(today, count, unit)?, at + 2 - i))
            }
        }
    }
}

/// Saturday and Sunday of the week `step` weeks from `day`'s (0: this weekend, -1: last).
fn weekend_of(day: CalendarDate, step: i64) -> DateRange {
    let monday = week_of(day).0.add_days(7 * step);
    (monday.add_days(5), monday.add_days(6))
}

/// A weekday's short form, read only after "last", "next" or "this" ("last Fri"): alone, "sat",
/// "sun" and "wed" are words.
fn short_weekday(word: &str) -> Option<u32> {
    let day = match word {
        "mon" => 0,
        "tue" => 1,
        "wed" => 2,
        "thu" => 3,
        "fri" => 4,
        "sat" => 5,
        "sun" => 6,
        _ => return None,
    };
    Some(day)
}

/// A count that says how many ("two", "a", "3", "a couple of"), not "a few" or "several".
fn exact_count(word: &str) -> Option<u32> {
    count(word).filter(|_| !matches!(word, "few" | "several" | "vai"))
}

#[cfg(test)]
mod tests {
    use super::{line_date, spoken_range, with_relative_dates, DateOrder};
    use crate::calendar::CalendarDate;

    fn day(text: &str) -> CalendarDate {
        CalendarDate::parse(text).unwrap()
    }

    /// `text` as written on `written_on`, its relative dates written out.
    fn resolved(text: &str, written_on: &str) -> String {
        with_relative_dates(text, day(written_on)).unwrap_or_else(|| text.to_owned())
    }

    #[test]
    fn relative_dates_count_from_the_day_the_text_was_written() {
        // Friday 9 June 2023.
        let cases = [
            ("I went yesterday.", "I went yesterday [= 8 June 2023]."),
            ("Last night was fun", "Last night [= 8 June 2023] was fun"),
            ("the day before yesterday", "the day before yesterday [= 7 June 2023]"),
            ("See you tomorrow!", "See you tomorrow [= 10 June 2023]!"),
            ("My school event last week", "My school event last week [= 29 May – 4 June 2023]"),
            ("I ran a race last weekend", "I ran a race last weekend [= 3–4 June 2023]"),
            ("camping this weekend", "camping this weekend [= 10–11 June 2023]"),
            ("Last Fri I took the kids", "Last Fri [= 2 June 2023] I took the kids"),
            ("last Tues", "last Tues [= 6 June 2023]"),
            ("next Monday", "next Monday [= 12 June 2023]"),
            ("going camping next month", "going camping next month [= July 2023]"),
            ("a conference this month", "a conference this month [= June 2023]"),
            ("a book I read last year", "a book I read last year [= 2022]"),
            ("a bowl for my 18th birthday ten years ago", "a bowl for my 18th birthday ten years ago [= 2013]"),
            ("two days ago", "two days ago [= 7 June 2023]"),
            ("a couple of weeks ago", "a couple of weeks ago [= 22–28 May 2023]"),
            ("camping two weekends ago", "camping two weekends ago [= 27–28 May 2023]"),
            ("3 months ago", "3 months ago [= March 2023]"),
        ];
        for (text, expected) in cases {
            assert_eq!(resolved(text, "2023-06-09"), expected, "{text}");
        }
        // Across a year's end, and the last day of a month.
        assert_eq!(resolved("next month", "2023-12-31"), "next month [= January 2024]");
        assert_eq!(resolved("last week", "2024-01-03"), "last week [= 25–31 December 2023]");
    }

    #[test]
    fn the_first_and_last_days_a_note_can_name_resolve_without_panicking() {
        let text = "yesterday, tomorrow, the day before yesterday, the day after tomorrow, last night, last week, \
                    next week, this weekend, last weekend, next month, last month, last year, next year, last Fri, \
                    next Sunday, 400 years ago, twelve months ago, two weekends ago, 3 days ago";
        for written_on in ["0000-01-01", "9999-12-31", "2024-02-29"] {
            let resolved = resolved(text, written_on);
            assert_eq!(resolved.matches(" [= ").count(), 19, "{written_on}: {resolved}");
        }
    }

    #[test]
    fn what_the_writing_day_does_not_decide_is_left_as_written() {
        for text in [
            "We meet on Friday.",
            "I lost ten pounds in three months.",
            "a few days ago",
            "several weeks ago",
            "I spent the last week at the beach.",
            "this is the last time",
            "next to the station",
            "On 8 May 2023 we met.",
        ] {
            assert_eq!(with_relative_dates(text, day("2023-06-09")), None, "{text}");
        }
    }

    #[test]
    fn a_line_dates_a_note_when_it_names_one_full_date() {
        let order = DateOrder::DayMonth;
        assert_eq!(line_date("# Monday 8 May 2023", order), Some(day("2023-05-08")));
        assert_eq!(line_date("Conversation on Monday 08 May 2023, 13:56", order), Some(day("2023-05-08")));
        assert_eq!(line_date("## 2023-05-08 standup", order), Some(day("2023-05-08")));
        assert_eq!(line_date("Call on 1/2/2026", order), Some(day("2026-02-01")));
        assert_eq!(line_date("Call on 1/2/2026", DateOrder::MonthDay), Some(day("2026-01-02")));
        assert_eq!(line_date("# Trip, 8 May 2023 to 12 May 2023", order), None, "two dates: which one?");
        assert_eq!(line_date("# Monday 8 May", order), None, "no year");
        assert_eq!(line_date("# Monday", order), None);
        assert_eq!(line_date("# Plans for 2023", order), None, "a year is no day");
    }

    #[test]
    fn days_are_said_as_a_reader_says_them() {
        let said = |first: &str, last: &str| spoken_range((day(first), day(last)));
        assert_eq!(said("2023-05-07", "2023-05-07"), "7 May 2023");
        assert_eq!(said("2023-06-03", "2023-06-04"), "3–4 June 2023");
        assert_eq!(said("2023-05-29", "2023-06-04"), "29 May – 4 June 2023");
        assert_eq!(said("2023-12-25", "2024-01-07"), "25 December 2023 – 7 January 2024");
        assert_eq!(said("2024-02-01", "2024-02-29"), "February 2024");
        assert_eq!(said("2022-01-01", "2022-12-31"), "2022");
    }
}
