//! How the verbs' reports look: JSON with `--json`, else plain text for a person.

use memory_agent::native::{describe_place, AskReport, IndexReport, RecallReport, RememberReport, StatusReport};
use serde::Serialize;

fn json(value: &impl Serialize) -> Result<(), String> {
    println!("{}", serde_json::to_string_pretty(value).map_err(|error| error.to_string())?);
    Ok(())
}

pub fn recall(report: &RecallReport, as_json: bool) -> Result<(), String> {
    if as_json {
        return json(report);
    }
    for memory in &report.memories {
        let date = memory.date.as_deref().unwrap_or("undated");
        let days =
            std::iter::once(date).chain(memory.also_on.iter().map(String::as_str)).collect::<Vec<_>>().join(", ");
        let facts =
            if memory.facts.is_empty() { String::new() } else { format!(" · facts: {}", memory.facts.join("; ")) };
        println!(
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
        );
    }
    for insight in &report.insights {
        println!("[consolidation:{}] {}", insight.id, insight.insight);
    }
    println!(
        "\n{} of {} memories and {} of {} insights, {} tokens.",
        report.memories.len(),
        report.memories_total,
        report.insights.len(),
        report.insights_total,
        report.tokens
    );
    Ok(())
}

pub fn ask(report: &AskReport, as_json: bool) -> Result<(), String> {
    if as_json {
        return json(report);
    }
    println!("{}\n", report.answer);
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
        println!("[{}] {} ({place})", index + 1, source.summary);
    }
    println!("\n{} tokens in, {} out · about ${:.4}", report.input_tokens, report.output_tokens, report.cost_usd);
    Ok(())
}

pub fn remember(report: &RememberReport, as_json: bool) -> Result<(), String> {
    if as_json {
        return json(report);
    }
    for memory in &report.memories {
        println!("[memory:{}] {} · {}", memory.id, memory.date, memory.summary);
    }
    println!("{}", report.how);
    Ok(())
}

pub fn index(report: &IndexReport, as_json: bool) -> Result<(), String> {
    if as_json {
        return json(report);
    }
    println!(
        "{} notes in scope: {} read ({} remembered, {} skipped, {} failed), {} removed.",
        report.notes, report.queued, report.done, report.skipped, report.failed, report.removed
    );
    if report.waiting > 0 {
        println!("{} still waiting (tried again at the next run).", report.waiting);
    }
    println!("{} calls · about ${:.4}", report.calls, report.cost_usd);
    Ok(())
}

pub fn status(report: &StatusReport, as_json: bool) -> Result<(), String> {
    if as_json {
        return json(report);
    }
    println!("Vault: {}\nDevice: {}", report.vault, report.device);
    println!("Index: {} ({} bytes)", report.database, report.database_bytes);
    println!("{} memories and {} insights from {} notes.", report.memories, report.insights, report.notes);
    println!(
        "Waiting in this device's index: {} jobs, {} failed{}.",
        report.queued_jobs,
        report.failed_jobs,
        if report.paused { " (paused)" } else { "" }
    );
    println!("Model: {} in {}", report.model_id, report.region);
    Ok(())
}
