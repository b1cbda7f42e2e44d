//! How memories and insights appear in the query prompt — one line each, the same text
//! whose tokens the packer counts.

use crate::domain::{Consolidation, Memory};

/// `[memory:ID] DATE · SOURCE#HEADING · SUMMARY · entities: … · topics: … · importance 0.7`
pub fn memory_line(memory: &Memory) -> String {
    let date = memory.happened_on.as_deref().unwrap_or("undated");
    let mut source = if memory.source_path.is_empty() { "typed".to_owned() } else { memory.source_path.clone() };
    if let Some(heading) = &memory.position.heading {
        source.push('#');
        source.push_str(heading);
    }
    let mut line = format!("[memory:{}] {date} · {source} · {}", memory.id.0, memory.summary);
    if !memory.entities.is_empty() {
        let entities: Vec<String> =
            memory.entities.iter().map(|entity| format!("{} ({})", entity.name, entity.kind)).collect();
        line.push_str(&format!(" · entities: {}", entities.join(", ")));
    }
    if !memory.topics.is_empty() {
        line.push_str(&format!(" · topics: {}", memory.topics.join(", ")));
    }
    line.push_str(&format!(" · importance {:.1}", memory.importance));
    line
}

/// `[consolidation:ID] INSIGHT (from memory:A, memory:B)`
pub fn insight_line(insight: &Consolidation) -> String {
    let sources: Vec<String> = insight.memory_ids.iter().map(|id| format!("memory:{}", id.0)).collect();
    format!("[consolidation:{}] {} (from {})", insight.id.0, insight.insight, sources.join(", "))
}

/// Tokens the element around a memory line adds in the prompt (`<memory>\n` and `\n</memory>`,
/// 19 characters), and one to spare for a closing marker the fence defuses inside the line.
/// Each memory is its own element so that text from a note cannot pass for another memory.
pub const MEMORY_ELEMENT_TOKENS: usize = 6;

/// Tokens an insight's element (`<insight>\n` and `\n</insight>`, 21 characters) and its date
/// (` · derived · newest memory YYYY-MM-DD`, 36 characters) add to its line, with one to spare.
pub const INSIGHT_ELEMENT_TOKENS: usize = 16;

/// The tokens an insight takes in the prompt: its line, its element and date, the line break.
pub fn insight_cost(insight: &Consolidation) -> usize {
    crate::tokens::estimate_tokens(&insight_line(insight)) + INSIGHT_ELEMENT_TOKENS + 1
}
