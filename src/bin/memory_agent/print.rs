//! How the verbs' reports look: JSON with `--json`, else plain text for a person.
//!
//! Every line goes to the writer it is handed (stdout, in `main`), never through `println!`,
//! which panics when the reader has gone (`memory-agent recall ... | head -1`): a write error
//! comes back to the caller, which ends quietly on a closed pipe.

use std::io::{self, Write};

use memory_agent::native::{describe_place, AskReport, IndexReport, RecallReport, RememberReport, StatusReport};
use serde::Serialize;

fn json(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)
}

pub fn recall(out: &mut dyn Write, report: &RecallReport, as_json: bool) -> io::Result<()> {
    if as_json {
        return json(out, report);
    }
    for memory in &report.memories {
        let date = memory.date.as_deref().unwrap_or("undated");
        let days =
            std::iter::once(date).chain(memory.also_on.iter().map(String::as_str)).collect::<Vec<_>>().join(", ");
        let facts =
            if memory.facts.is_empty() { String::new() } else { format!(" · facts: {}", memory.facts.join("; ")) };
        writeln!(
            out,
            "[memory:{}] {days} · {} · {}{facts}",
            memory.id,
            describe_place(
                &memory.source_path,
                memory.heading.as_deref(),
                memory.file_kind,
                memory.page,
                memory.last_page
            ),
            memory.summary
        )?;
    }
    for insight in &report.insights {
        writeln!(out, "[consolidation:{}] {}", insight.id, insight.insight)?;
    }
    writeln!(
        out,
        "\n{} of {} memories and {} of {} insights, {} tokens.",
        report.memories.len(),
        report.memories_total,
        report.insights.len(),
        report.insights_total,
        report.tokens
    )?;
    Ok(())
}

pub fn ask(out: &mut dyn Write, report: &AskReport, as_json: bool) -> io::Result<()> {
    if as_json {
        return json(out, report);
    }
    writeln!(out, "{}\n", report.answer)?;
    for (index, source) in report.sources.iter().enumerate() {
        let place = if source.kind == "memory" {
            describe_place(
                &source.source_path,
                source.heading.as_deref(),
                source.file_kind,
                source.page,
                source.last_page,
            )
        } else {
            format!("insight from {}", source.connects.join(", "))
        };
        writeln!(out, "[{}] {} ({place})", index + 1, source.summary)?;
    }
    writeln!(out, "\n{} tokens in, {} out · about ${:.4}", report.input_tokens, report.output_tokens, report.cost_usd)?;
    Ok(())
}

pub fn remember(out: &mut dyn Write, report: &RememberReport, as_json: bool) -> io::Result<()> {
    if as_json {
        return json(out, report);
    }
    for memory in &report.memories {
        writeln!(out, "[memory:{}] {} · {}", memory.id, memory.date, memory.summary)?;
    }
    writeln!(out, "{}", report.how)?;
    Ok(())
}

pub fn index(out: &mut dyn Write, report: &IndexReport, as_json: bool) -> io::Result<()> {
    if as_json {
        return json(out, report);
    }
    writeln!(
        out,
        "{} notes in scope: {} read ({} remembered, {} skipped, {} failed), {} removed.",
        report.notes, report.queued, report.done, report.skipped, report.failed, report.removed
    )?;
    if report.waiting > 0 {
        writeln!(out, "{} still waiting (tried again at the next run).", report.waiting)?;
    }
    writeln!(out, "{} calls · about ${:.4}", report.calls, report.cost_usd)?;
    Ok(())
}

pub fn status(out: &mut dyn Write, report: &StatusReport, as_json: bool) -> io::Result<()> {
    if as_json {
        return json(out, report);
    }
    writeln!(out, "Vault: {}\nDevice: {}", report.vault, report.device)?;
    writeln!(out, "Index: {} ({} bytes)", report.database, report.database_bytes)?;
    writeln!(out, "{} memories and {} insights from {} notes.", report.memories, report.insights, report.notes)?;
    writeln!(
        out,
        "Waiting in this device's index: {} jobs, {} failed{}.",
        report.queued_jobs,
        report.failed_jobs,
        if report.paused { " (paused)" } else { "" }
    )?;
    writeln!(out, "Model: {} in {}", report.model_id, report.region)?;
    Ok(())
}
