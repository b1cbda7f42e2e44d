//! A deterministic stand-in for Claude: reads the request the agents built and answers
//! the way a good model would, so engine tests can run whole flows.

use memory_agent::llm::HttpRequest;
use serde_json::{json, Value};

use super::scripted_transport::Scripted;

/// The text between `<tag>` and `</tag>` in `text`.
pub fn between<'a>(text: &'a str, tag: &str) -> &'a str {
    let open = format!("<{tag}>\n");
    let close = format!("\n</{tag}>");
    let start = text.find(&open).map(|at| at + open.len()).unwrap_or(0);
    let end = text[start..].find(&close).map(|at| start + at).unwrap_or(text.len());
    &text[start..end]
}

/// All user-message text of a Converse request body.
pub fn user_text(body: &Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|message| message["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|block| block["text"].as_str().map(str::to_owned))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Ids like `m-0123456789` in order of appearance, without repeats.
pub fn memory_ids(text: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("m-") {
        let candidate: String = text[at..].chars().take(12).collect();
        let hex = candidate.len() == 12 && candidate[2..].chars().all(|c| c.is_ascii_hexdigit());
        let fresh = at == 0 || !text[..at].ends_with(|c: char| c.is_ascii_alphanumeric());
        if hex && fresh && !ids.contains(&candidate) {
            ids.push(candidate);
        }
    }
    ids
}

/// The `YYYY-MM-DD` dates a note's text writes, in order, or `None` when it writes none
/// (the fake then dates the memory by the note's date, as a model resolving "today" would),
/// or `Some(empty)` when it says `NO DATE` (a model that finds no date in the text).
fn dates_in(note: &str) -> Option<Vec<String>> {
    if note.contains("NO DATE") {
        return Some(Vec::new());
    }
    let bytes = note.as_bytes();
    let dates: Vec<String> = (0..bytes.len().saturating_sub(9))
        .filter(|&at| at == 0 || !bytes[at - 1].is_ascii_alphanumeric())
        .filter_map(|at| note.get(at..at + 10))
        .filter(|candidate| {
            let b = candidate.as_bytes();
            b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
        })
        .map(str::to_owned)
        .collect();
    (!dates.is_empty()).then_some(dates)
}

/// The pieces of a batched ingest request: each `<note id="cN">` fence's id, the note date
/// given before it, and what it holds.
pub fn pieces(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("<note id=\"") {
        let before = &rest[..at];
        let note_date =
            before.rsplit("Note date: ").next().map(|date| date.chars().take(10).collect()).unwrap_or_default();
        let after = &rest[at + "<note id=\"".len()..];
        let Some(quote) = after.find("\">\n") else { break };
        let id = after[..quote].to_owned();
        let body = &after[quote + 3..];
        let end = body.find("\n</note>").unwrap_or(body.len());
        out.push((id, note_date, body[..end].to_owned()));
        rest = &body[end..];
    }
    out
}

/// One entry per piece of a batched request, as a model that keeps them apart answers.
pub fn batch_memories(text: &str) -> Vec<Value> {
    pieces(text)
        .into_iter()
        .map(|(id, note_date, fenced)| {
            let mut memory = memory_of(&fenced, &note_date);
            memory["chunk"] = json!(id);
            memory
        })
        .collect()
}

/// The `record_memory` input for a fenced piece: its first line as the summary, the names
/// Alice, Bob and Carol when it holds them, its dates (else the note's), its `FACT:` lines.
pub fn memory_of(fenced: &str, note_date: &str) -> Value {
    // The file name, section and properties come first inside the fence, then a blank line.
    let note = match fenced.split_once("\n\n") {
        Some((header, body))
            if header.starts_with("File: ")
                || header.starts_with("Section: ")
                || header.starts_with("Properties: ") =>
        {
            body
        }
        _ => fenced,
    };
    if note.contains("NOTHING TO REMEMBER") {
        return json!({ "nothing_to_remember": true, "summary": "", "entities": [], "topics": [], "importance": 0, "happened_on": [] });
    }
    let first_line = note.lines().find(|line| !line.trim().is_empty()).unwrap_or("").trim_start_matches('#').trim();
    let entities: Vec<Value> = ["Alice", "Bob", "Carol"]
        .iter()
        .filter(|name| note.contains(*name))
        .map(|name| json!({ "name": name, "kind": "person" }))
        .collect();
    json!({
        "nothing_to_remember": false,
        "summary": format!("Remembered: {}.", first_line.chars().take(80).collect::<String>()),
        "entities": entities,
        "topics": ["notes"],
        "importance": 0.5,
        "happened_on": dates_in(note).unwrap_or_else(|| vec![note_date.to_owned()]),
        "facts": note.lines().filter_map(|line| line.trim().strip_prefix("FACT: ")).collect::<Vec<_>>(),
    })
}

/// Answers ingest, consolidate and query requests.
pub fn answer(request: &HttpRequest) -> Scripted {
    let body: Value = serde_json::from_str(&request.body).expect("a JSON body");
    let text = user_text(&body);
    match body["toolConfig"]["toolChoice"]["tool"]["name"].as_str() {
        Some("record_memory") => {
            let note_date = text.split("Note date: ").nth(1).map(|rest| rest[..10].to_owned()).unwrap_or_default();
            Scripted::tool("record_memory", memory_of(between(&text, "note"), &note_date))
        }
        Some("record_memories") => Scripted::tool("record_memories", json!({ "memories": batch_memories(&text) })),
        Some("record_insights") => {
            let ids = memory_ids(between(&text, "memories"));
            let insights = if ids.len() >= 2 {
                json!([{ "insight": format!("These {} memories belong together.", ids.len()), "memory_ids": ids, "connections": [{ "from": ids[0], "to": ids[1], "relationship": "same week" }] }])
            } else {
                json!([])
            };
            Scripted::tool("record_insights", json!({ "insights": insights }))
        }
        _ => {
            let ids = memory_ids(between(&text, "memories"));
            let cited: Vec<String> = ids.iter().take(2).map(|id| format!("[memory:{id}]")).collect();
            Scripted::text(&format!("From your notes: {}.", cited.join(" ")))
        }
    }
}
