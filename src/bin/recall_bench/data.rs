//! The benchmark's input: memories and questions as JSON lines, read into the core's
//! `Memory` and a `Question` with its local date.
//!
//! Memories: `{"id","text","summary"?,"date","source","entities"?,"topics"?,"importance"?}`
//! where `date` is `YYYY-MM-DD` or RFC 3339 and entities are names or `{name, kind}`. `text`
//! is the passage the memory was made from (the chunk's raw text, which the store searches
//! for keywords and the bench serves as a note at `source`, see `vault`); `summary` is what
//! the ingest made of it, and without one the text is the summary too. Missing fields stay
//! empty (importance 0.5), so the selection works from text, date and source alone.
//! Questions: `{"id","question","asked_at","evidence","answer"?,"category"?}`; `asked_at`'s
//! date is "today" and its offset the user's time zone (UTC for `Z` or a bare date);
//! `answer` is one short answer or a list of acceptable ones (annotators often differ:
//! "2015", "the 2015 season").

use std::collections::HashSet;

use memory_agent::calendar::CalendarDate;
use memory_agent::domain::{Entity, Memory, MemoryId, Millis, Position, SourceKind};
use serde::Deserialize;

/// A question with what answering it needs.
#[derive(Debug, Clone)]
pub struct Question {
    pub id: String,
    pub question: String,
    pub today: CalendarDate,
    pub utc_offset_minutes: i32,
    pub evidence: Vec<String>,
    /// Acceptable answers, any one of which is right; empty when the set has none.
    pub answers: Vec<String>,
    pub category: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryRecord {
    id: String,
    text: String,
    #[serde(default)]
    summary: Option<String>,
    date: String,
    source: String,
    #[serde(default)]
    entities: Vec<EntityRecord>,
    #[serde(default)]
    topics: Vec<String>,
    #[serde(default)]
    importance: Option<f64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum EntityRecord {
    Name(String),
    Full {
        name: String,
        #[serde(default)]
        kind: Option<String>,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct QuestionRecord {
    id: String,
    question: String,
    asked_at: String,
    evidence: Vec<String>,
    #[serde(default)]
    answer: Option<AnswerRecord>,
    #[serde(default)]
    category: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum AnswerRecord {
    One(String),
    Any(Vec<String>),
}

/// Reads the memories file; the error names the line.
pub fn load_memories(path: &str) -> Result<Vec<Memory>, String> {
    let text = std::fs::read_to_string(path).map_err(|error| format!("{path}: {error}"))?;
    let mut memories = Vec::new();
    let mut seen = HashSet::new();
    for (number, line) in lines(&text) {
        let at = || format!("{path}:{number}");
        let record: MemoryRecord = serde_json::from_str(line).map_err(|error| format!("{}: {error}", at()))?;
        let (created_at, day, _) = parse_time(&record.date)
            .ok_or_else(|| format!("{}: date \"{}\" is not YYYY-MM-DD or RFC 3339", at(), record.date))?;
        if record.text.trim().is_empty() {
            return Err(format!("{}: memory {} has no text", at(), record.id));
        }
        let summary = record.summary.as_deref().unwrap_or(&record.text).trim().to_owned();
        if summary.is_empty() {
            return Err(format!("{}: memory {} has an empty summary", at(), record.id));
        }
        if !seen.insert(record.id.clone()) {
            return Err(format!("{}: memory id {} appears twice", at(), record.id));
        }
        let entities = record
            .entities
            .into_iter()
            .map(|entity| match entity {
                EntityRecord::Name(name) => Entity { name, kind: "thing".into() },
                EntityRecord::Full { name, kind } => Entity { name, kind: kind.unwrap_or_else(|| "thing".into()) },
            })
            .filter(|entity| !entity.name.trim().is_empty())
            .collect();
        memories.push(Memory {
            id: MemoryId(record.id),
            source_path: record.source,
            source_kind: SourceKind::Note,
            position: Position::default(),
            raw_text: record.text.clone(),
            summary,
            entities,
            topics: record.topics,
            importance: record.importance.unwrap_or(0.5).clamp(0.0, 1.0),
            happened_on: Some(day.to_string()),
            also_on: Vec::new(),
            date_source: Default::default(),
            facts: Vec::new(),
            created_at,
            updated_at: created_at,
            consolidated: false,
            content_hash: None,
        });
    }
    Ok(memories)
}

/// Reads the questions file; every evidence id must be a known memory.
pub fn load_questions(path: &str, memory_ids: &HashSet<&str>) -> Result<Vec<Question>, String> {
    let text = std::fs::read_to_string(path).map_err(|error| format!("{path}: {error}"))?;
    let mut questions = Vec::new();
    for (number, line) in lines(&text) {
        let at = || format!("{path}:{number}");
        let record: QuestionRecord = serde_json::from_str(line).map_err(|error| format!("{}: {error}", at()))?;
        let (_, today, utc_offset_minutes) = parse_time(&record.asked_at)
            .ok_or_else(|| format!("{}: asked_at \"{}\" is not RFC 3339", at(), record.asked_at))?;
        if record.evidence.is_empty() {
            return Err(format!("{}: question {} has no evidence", at(), record.id));
        }
        if let Some(unknown) = record.evidence.iter().find(|id| !memory_ids.contains(id.as_str())) {
            return Err(format!("{}: question {} cites unknown memory {unknown}", at(), record.id));
        }
        let answers: Vec<String> = match record.answer {
            None => vec![],
            Some(AnswerRecord::One(answer)) => vec![answer],
            Some(AnswerRecord::Any(answers)) => answers,
        };
        let answers: Vec<String> =
            answers.into_iter().map(|answer| answer.trim().to_owned()).filter(|answer| !answer.is_empty()).collect();
        questions.push(Question {
            id: record.id,
            question: record.question,
            today,
            utc_offset_minutes,
            evidence: record.evidence,
            answers,
            category: record.category,
        });
    }
    Ok(questions)
}

/// Non-blank lines with their 1-based numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(index, line)| (index + 1, line.trim())).filter(|(_, line)| !line.is_empty())
}

/// `YYYY-MM-DD` (midnight UTC) or RFC 3339 → (UTC millis, the local date as written, the
/// offset in minutes).
pub fn parse_time(text: &str) -> Option<(Millis, CalendarDate, i32)> {
    let day = CalendarDate::parse(text)?;
    let rest = &text[10..];
    if rest.is_empty() {
        return Some((day.to_days() * 86_400_000, day, 0));
    }
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let (clock, offset) = match rest.find(['Z', 'z', '+', '-']) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "Z"),
    };
    let mut parts = clock.split(':');
    let hours: i64 = parts.next()?.parse().ok()?;
    let minutes: i64 = parts.next()?.parse().ok()?;
    let seconds: f64 = parts.next().unwrap_or("0").parse().ok()?;
    if hours > 23 || minutes > 59 || !(0.0..61.0).contains(&seconds) {
        return None;
    }
    let offset_minutes: i32 = match offset {
        "Z" | "z" => 0,
        _ => {
            let sign = if offset.starts_with('-') { -1 } else { 1 };
            let (oh, om) = offset[1..].split_once(':')?;
            sign * (oh.parse::<i32>().ok()? * 60 + om.parse::<i32>().ok()?)
        }
    };
    let local = day.to_days() * 86_400_000 + (hours * 3600 + minutes * 60) * 1000 + (seconds * 1000.0) as i64;
    Some((local - i64::from(offset_minutes) * 60_000, day, offset_minutes))
}

#[cfg(test)]
mod tests {
    use super::parse_time;

    #[test]
    fn times_keep_their_local_date_and_offset() {
        let (at, day, offset) = parse_time("2026-02-01T23:30:00-05:00").unwrap();
        assert_eq!((day.to_string(), offset), ("2026-02-01".to_owned(), -300));
        assert_eq!(at, parse_time("2026-02-02T04:30:00Z").unwrap().0);
        assert_eq!(parse_time("2026-02-01").unwrap().2, 0);
        assert!(parse_time("2026-02-01T25:00:00Z").is_none());
        assert!(parse_time("yesterday").is_none());
    }
}
