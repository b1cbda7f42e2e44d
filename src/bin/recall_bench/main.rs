//! `recall-bench`: how much of the evidence for each question the QueryAgent's selection
//! puts into the prompt, at several budgets, against packing the most recent memories.
//!
//! It runs `select::select_context` — the very function the plugin calls — over an
//! in-memory SQLite store (rusqlite, the same SQL as sql.js) loaded from JSON lines. The
//! last line printed is one JSON object for scripts; everything above it is for people.
//!
//! ```text
//! recall-bench --memories FILE --questions FILE [--budgets 4000,16000,32000] [--date-order day-month|month-day]
//!              (a budget may be `default`: the plugin's, `settings_schema::CONTEXT_BUDGET_TOKENS`)
//!              [--misses]   (also print each question that misses evidence, with its plan)
//!              [--print-packed FILE]   (one JSON line per question and budget: what the QueryAgent sent)
//!              [--copies N]   (every Nth memory also copied into another note, as a copied note or a
//!                              passage remembered twice makes it; either one counts as the evidence)
//! recall-bench --generate DIR [--seed N] [--days N]
//! ```
//!
//! For questions that carry answers it also reports, per budget and category, the share whose
//! answer is in what the QueryAgent packs into its request (`answers`), and what the request
//! costs: that text comes from running the real QueryAgent (`packed`), never from a copy of
//! its prompt.

#[cfg(not(target_arch = "wasm32"))]
mod answers;
#[cfg(not(target_arch = "wasm32"))]
mod chats;
#[cfg(not(target_arch = "wasm32"))]
mod data;
#[cfg(not(target_arch = "wasm32"))]
mod generate;
#[cfg(not(target_arch = "wasm32"))]
mod packed;
#[cfg(not(target_arch = "wasm32"))]
mod vault;

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match bench::run(&args) {
        Ok(()) => {}
        Err(message) => {
            eprintln!("recall-bench: {message}");
            std::process::exit(2);
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use std::cell::RefCell;
    use std::collections::{BTreeMap, HashMap, HashSet};
    use std::io::Write;

    use memory_agent::agents::planner::plan_from_tool;
    use memory_agent::calendar::CalendarDate;
    use memory_agent::domain::Memory;
    use memory_agent::select::{
        insight_cost, line_cost, lines_cost, select_context, DateOrder, NameCache, QueryPlan, SelectionRequest,
    };
    use memory_agent::settings_schema::CONTEXT_BUDGET_TOKENS;
    use memory_agent::store::rusqlite_driver::RusqliteDriver;
    use memory_agent::store::Store;
    use serde_json::{json, Map, Value};

    use super::answers::PackedWords;
    use super::data::{load_memories, load_questions, Question};
    use super::generate;
    use super::packed::ask_query_agent;
    use super::vault::Vault;

    const USAGE: &str = "usage: recall-bench --memories FILE --questions FILE [--budgets 4000,16000,32000 (or default)] \
[--date-order day-month|month-day] [--misses] [--print-packed FILE] [--passages on|off|PERCENT] [--copies N]\n       recall-bench --generate DIR [--seed N] [--days N]\n       recall-bench --generate-chats DIR [--seed N]\n       recall-bench   (no arguments: the synthetic notes, the synthetic conversations and the tldr-pages set)";

    /// The figures of one budget.
    #[derive(Default)]
    struct Figures {
        recall: f64,
        baseline: f64,
        tokens: f64,
        max_tokens: usize,
        questions: usize,
        /// Questions with answers, and how many of them have one in the packed text.
        answered: usize,
        in_context: usize,
        /// The QueryAgent's whole request, summed over the questions it was asked.
        request_tokens: f64,
        asked: usize,
    }

    pub fn run(args: &[String]) -> Result<(), String> {
        let option = |name: &str| -> Option<&str> {
            args.iter().position(|arg| arg == name).and_then(|at| args.get(at + 1)).map(String::as_str)
        };
        if args.iter().any(|arg| arg == "--help" || arg == "-h") {
            println!("{USAGE}");
            return Ok(());
        }
        if let Some(dir) = option("--generate-chats") {
            let seed = option("--seed").map_or(Ok(1), str::parse).map_err(|_| "--seed must be a number")?;
            let (memories, questions) = super::chats::write(dir, seed)?;
            println!("wrote {memories} memories and {questions} questions to {dir} (seed {seed})");
            return Ok(());
        }
        if let Some(dir) = option("--generate") {
            let seed = option("--seed").map_or(Ok(1), str::parse).map_err(|_| "--seed must be a number")?;
            let days = option("--days").map_or(Ok(730), str::parse).map_err(|_| "--days must be a number")?;
            let (memories, questions) = generate::write(dir, seed, days)?;
            println!("wrote {memories} memories and {questions} questions to {dir} (seed {seed})");
            return Ok(());
        }
        let budgets = parse_budgets(option("--budgets").unwrap_or("4000,16000,32000"))?;
        let date_order = match option("--date-order").unwrap_or("day-month") {
            "day-month" => DateOrder::DayMonth,
            "month-day" => DateOrder::MonthDay,
            other => return Err(format!("--date-order is day-month or month-day, not {other}")),
        };
        let show_misses = args.iter().any(|arg| arg == "--misses");
        let plans = match option("--plans") {
            Some(path) => load_plans(path)?,
            None => HashMap::new(),
        };
        let print_packed = match option("--print-packed") {
            Some(path) => Some(RefCell::new(std::io::BufWriter::new(
                std::fs::File::create(path).map_err(|error| format!("{path}: {error}"))?,
            ))),
            None if args.iter().any(|arg| arg == "--print-packed") => return Err(USAGE.into()),
            None => None,
        };
        let read_passages = match option("--passages").unwrap_or("on") {
            "on" => Some(memory_agent::agents::query::LINES_SHARE_PERCENT),
            "off" => None,
            share => match share.parse::<usize>() {
                Ok(percent @ 1..=100) => Some(percent),
                _ => return Err(format!("--passages is on, off or the lines' share in percent (1-100), not {share}")),
            },
        };
        let copies = match option("--copies") {
            Some(every) => Some(
                every.parse::<usize>().ok().filter(|every| *every > 0).ok_or("--copies must be a number above 0")?,
            ),
            None => None,
        };
        let settings = Settings { budgets, date_order, show_misses, plans, print_packed, read_passages, copies };
        let files_named = args.iter().any(|arg| arg == "--memories" || arg == "--questions");
        if settings.print_packed.is_some() && !files_named {
            return Err("--print-packed needs --memories and --questions".into());
        }
        match (option("--memories"), option("--questions")) {
            (Some(memories), Some(questions)) => {
                let summary = evaluate(memories, questions, &settings)?;
                if let Some(out) = &settings.print_packed {
                    out.borrow_mut().flush().map_err(|error| format!("--print-packed: {error}"))?;
                }
                println!("{summary}");
            }
            (None, None) if !files_named => {
                // The three sets of the README: synthetic notes, synthetic conversations, and
                // the tldr-pages set made from public material.
                let dir = std::env::temp_dir().join(format!("memory-agent-recall-{}", std::process::id()));
                let notes = dir.join("notes");
                let chats = dir.join("chats");
                let path = |dir: &std::path::Path| dir.to_string_lossy().into_owned();
                generate::write(&path(&notes), 1, 730)?;
                super::chats::write(&path(&chats), 1)?;
                let tldr = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/recall-tldr");
                let sets = [
                    ("synthetic notes (seed 1)", path(&notes)),
                    ("synthetic conversations (seed 1)", path(&chats)),
                    ("tldr-pages (CC BY 4.0, tests/fixtures/recall-tldr)", tldr.to_owned()),
                ];
                let mut summaries = Map::new();
                for (name, dir) in sets {
                    println!("== {name}");
                    let summary =
                        evaluate(&format!("{dir}/memories.jsonl"), &format!("{dir}/questions.jsonl"), &settings)?;
                    summaries.insert(name.to_owned(), summary);
                    println!();
                }
                let _ = std::fs::remove_dir_all(&dir);
                println!("{}", Value::Object(summaries));
            }
            _ => return Err(USAGE.into()),
        }
        Ok(())
    }

    struct Settings {
        budgets: Vec<usize>,
        date_order: DateOrder,
        show_misses: bool,
        /// A query-planning call's answer per question id (`--plans`), as `plan_search` input.
        plans: HashMap<String, Value>,
        /// Where `--print-packed` writes what the QueryAgent sent.
        print_packed: Option<RefCell<std::io::BufWriter<std::fs::File>>>,
        /// Whether the QueryAgent reads the passages behind its memories (the plugin's "Read the
        /// notes behind memories"), and the share of the budget its memory lines may take
        /// (`--passages on|off|PERCENT`; `on` is `LINES_SHARE_PERCENT`).
        read_passages: Option<usize>,
        /// Every Nth memory also copied into another note (`--copies N`).
        copies: Option<usize>,
    }

    /// Where the answers are, whatever the budget: in the summaries of each question's evidence
    /// memories (what a QueryAgent that reads memory lines can find) and in their passages (what
    /// one that reads the notes behind them can find), over the questions with answers.
    #[derive(Default)]
    struct InEvidence {
        answered: usize,
        in_summaries: usize,
        in_passages: usize,
    }

    impl InEvidence {
        fn add(&mut self, in_summaries: bool, in_passages: bool) {
            self.answered += 1;
            self.in_summaries += usize::from(in_summaries);
            self.in_passages += usize::from(in_passages);
        }

        fn json(&self) -> Value {
            json!({
                "answer_in_summaries": round(mean(self.in_summaries as f64, self.answered)),
                "answer_in_passages": round(mean(self.in_passages as f64, self.answered)),
            })
        }
    }

    /// `InEvidence` over the whole set and by category.
    fn in_evidence(
        memories: &[Memory],
        vault: &Vault,
        questions: &[Question],
    ) -> (InEvidence, BTreeMap<String, InEvidence>) {
        let by_id: HashMap<&str, &Memory> = memories.iter().map(|memory| (memory.id.0.as_str(), memory)).collect();
        let (mut overall, mut categories) = (InEvidence::default(), BTreeMap::<String, InEvidence>::new());
        for question in questions.iter().filter(|question| !question.answers.is_empty()) {
            let evidence: Vec<&Memory> =
                question.evidence.iter().filter_map(|id| by_id.get(id.as_str()).copied()).collect();
            debug_assert_eq!(evidence.len(), question.evidence.len(), "evidence ids were checked at load");
            let summaries: Vec<&str> = evidence.iter().map(|memory| memory.summary.as_str()).collect();
            // A memory without a note (typed text) carries its passage itself.
            let passages: Vec<String> = evidence
                .iter()
                .map(|memory| vault.passage(memory).unwrap_or_else(|| memory.raw_text.clone()))
                .collect();
            let in_summaries = PackedWords::of(&summaries.join("\n")).hold_any(&question.answers);
            let in_passages = PackedWords::of(&passages.join("\n")).hold_any(&question.answers);
            overall.add(in_summaries, in_passages);
            if let Some(category) = &question.category {
                categories.entry(category.clone()).or_default().add(in_summaries, in_passages);
            }
        }
        (overall, categories)
    }

    /// One line of `--print-packed`, its fields in this order.
    #[derive(serde::Serialize)]
    struct PackedLine<'a> {
        question_id: &'a str,
        budget: usize,
        packed: &'a str,
    }

    /// `4000,16000,default`: token budgets, `default` being the plugin's own
    /// (`settings_schema::CONTEXT_BUDGET_TOKENS`).
    fn parse_budgets(text: &str) -> Result<Vec<usize>, String> {
        text.split(',')
            .map(str::trim)
            .map(|budget| match budget {
                "default" => Ok(CONTEXT_BUDGET_TOKENS.default as usize),
                _ => budget.parse().map_err(|_| format!("bad budget \"{budget}\"")),
            })
            .collect()
    }

    /// `{"id": question id, "plan": {"keywords": [...], "entities": [...], "dates": {...}}}`
    /// per line: what a planning model answered for each question, recorded elsewhere.
    fn load_plans(path: &str) -> Result<HashMap<String, Value>, String> {
        let text = std::fs::read_to_string(path).map_err(|error| format!("{path}: {error}"))?;
        let mut plans = HashMap::new();
        for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
            let value: Value = serde_json::from_str(line).map_err(|error| format!("{path}:{}: {error}", number + 1))?;
            let id = value["id"].as_str().ok_or_else(|| format!("{path}:{}: no id", number + 1))?;
            plans.insert(id.to_owned(), value["plan"].clone());
        }
        Ok(plans)
    }

    /// Runs the selection for every question of one set at every budget; prints the tables
    /// and returns the figures as JSON.
    fn evaluate(memories_path: &str, questions_path: &str, settings: &Settings) -> Result<Value, String> {
        let Settings { budgets, date_order, show_misses, plans, print_packed, read_passages, copies } = settings;
        let (date_order, show_misses, read_passages) = (*date_order, *show_misses, *read_passages);
        let mut memories = load_memories(memories_path)?;
        if let Some(every) = copies {
            add_copies(&mut memories, *every);
        }
        let vault = Vault::lay_out(&mut memories);
        let ids: HashSet<&str> = memories.iter().map(|memory| memory.id.0.as_str()).collect();
        let questions = load_questions(questions_path, &ids)?;
        if questions.is_empty() {
            return Err(format!("{questions_path} has no questions"));
        }
        let store = Store::open(RusqliteDriver::new()).map_err(|error| error.to_string())?;
        store
            .transaction(|store| memories.iter().try_for_each(|memory| store.insert_memory(memory)))
            .map_err(|error| error.to_string())?;
        let by_recency = newest_first(&memories);
        // The QueryAgent runs only where it is measured: answers to look for, or its text asked for.
        let asks_agent = |question: &Question| !question.answers.is_empty() || print_packed.is_some();
        // As the engine does: the names are prepared once and kept while they do not change.
        let names = NameCache::new();

        let mut overall: BTreeMap<usize, Figures> = BTreeMap::new();
        let mut categories: BTreeMap<String, BTreeMap<usize, Figures>> = BTreeMap::new();
        let mut millis: BTreeMap<usize, f64> = BTreeMap::new();
        for &budget in budgets {
            #[allow(clippy::disallowed_methods)] // wall time of a native benchmark, not core logic
            let started = std::time::Instant::now();
            for question in &questions {
                let hint = plans.get(&question.id).map(plan_from_tool);
                let (recall, tokens, plan, missing) =
                    select_recall(&store, &names, question, date_order, budget, hint)?;
                if show_misses && recall < 1.0 {
                    println!(
                        "miss at {budget}: {} {:?} recall {recall:.2} missing {} plan {plan}",
                        question.id,
                        question.question,
                        missing.join(",")
                    );
                }
                let baseline = recent_recall(&by_recency, question, budget);
                let sent = if asks_agent(question) {
                    let sent = ask_query_agent(
                        &store,
                        &names,
                        &vault,
                        read_passages,
                        question,
                        date_order,
                        budget,
                        plans.get(&question.id),
                    )?;
                    if let Some(out) = print_packed {
                        let line = PackedLine { question_id: &question.id, budget, packed: &sent.packed };
                        let line = serde_json::to_string(&line).map_err(|error| format!("--print-packed: {error}"))?;
                        writeln!(out.borrow_mut(), "{line}").map_err(|error| format!("--print-packed: {error}"))?;
                    }
                    let found = PackedWords::of(&sent.packed).hold_any(&question.answers);
                    Some((sent.request_tokens, found))
                } else {
                    None
                };
                let add = |figures: &mut Figures| {
                    figures.recall += recall;
                    figures.baseline += baseline;
                    figures.tokens += tokens as f64;
                    figures.max_tokens = figures.max_tokens.max(tokens);
                    figures.questions += 1;
                    if let Some((request_tokens, found)) = sent {
                        figures.request_tokens += request_tokens as f64;
                        figures.asked += 1;
                        if !question.answers.is_empty() {
                            figures.answered += 1;
                            figures.in_context += usize::from(found);
                        }
                    }
                };
                add(overall.entry(budget).or_default());
                if let Some(category) = &question.category {
                    add(categories.entry(category.clone()).or_default().entry(budget).or_default());
                }
            }
            millis.insert(budget, started.elapsed().as_secs_f64() * 1000.0 / questions.len() as f64);
        }
        println!(
            "recall-bench: {} questions over {} memories in {} notes (select::select_context{})",
            questions.len(),
            memories.len(),
            vault.len(),
            if questions.iter().any(asks_agent) { "; packed text from agents::query::answer" } else { "" }
        );
        print_table(&overall, &categories, &millis);
        let mut figures = summary(&overall, &categories, memories.len(), questions.len());
        let (evidence, by_category) = in_evidence(&memories, &vault, &questions);
        if evidence.answered > 0 {
            println!(
                "answers in the evidence's summaries: {:.3}, in its passages: {:.3} ({} questions with answers)",
                mean(evidence.in_summaries as f64, evidence.answered),
                mean(evidence.in_passages as f64, evidence.answered),
                evidence.answered
            );
            println!();
            let mut entry = evidence.json();
            entry["questions"] = json!(evidence.answered);
            if !by_category.is_empty() {
                entry["categories"] =
                    by_category.iter().map(|(category, evidence)| (category.clone(), evidence.json())).collect();
            }
            figures["evidence"] = entry;
        }
        Ok(figures)
    }

    /// Runs the plugin's selection for one question; returns its recall, packed tokens and
    /// plan, after checking the tokens independently against the budget.
    fn select_recall(
        store: &Store<RusqliteDriver>,
        names: &NameCache,
        question: &Question,
        date_order: DateOrder,
        budget: usize,
        hint: Option<QueryPlan>,
    ) -> Result<(f64, usize, Value, Vec<String>), String> {
        let request = SelectionRequest {
            question: &question.question,
            today: question.today,
            utc_offset_minutes: question.utc_offset_minutes,
            date_order,
            budget_tokens: budget,
            names,
            hint: hint.as_ref(),
            earlier: &[],
            scope: None,
        };
        let selection =
            select_context(store, &request).map_err(|error| format!("question {}: {error}", question.id))?;
        let packed = selection.packed;
        // Counted again from the lines as the prompt writes them, in its order.
        let counted: usize = lines_cost(&packed.memories) + packed.insights.iter().map(insight_cost).sum::<usize>();
        if counted != packed.tokens || counted > budget {
            return Err(format!(
                "question {}: packed {counted} tokens (reported {}) for a budget of {budget}",
                question.id, packed.tokens
            ));
        }
        let chosen: HashSet<&str> = packed.memories.iter().map(|memory| memory.id.0.as_str()).collect();
        let plan = serde_json::to_value(&selection.plan).unwrap_or(Value::Null);
        let missing = question.evidence.iter().filter(|id| !chosen.contains(id.as_str())).cloned().collect();
        Ok((share(&question.evidence, &chosen), counted, plan, missing))
    }

    /// The first release's idea of a context: the most recent memories up to the day the
    /// question is asked, packed greedily into the same budget.
    fn recent_recall(by_recency: &[(CalendarDate, &Memory, usize)], question: &Question, budget: usize) -> f64 {
        let mut used = 0;
        let mut chosen: HashSet<&str> = HashSet::new();
        for (day, memory, cost) in by_recency {
            if *day > question.today {
                continue;
            }
            if used + cost <= budget {
                used += cost;
                chosen.insert(memory.id.0.as_str());
            }
        }
        share(&question.evidence, &chosen)
    }

    fn newest_first(memories: &[Memory]) -> Vec<(CalendarDate, &Memory, usize)> {
        let mut sorted: Vec<(CalendarDate, &Memory, usize)> = memories
            .iter()
            .map(|memory| {
                let day = memory
                    .happened_on
                    .as_deref()
                    .and_then(CalendarDate::parse)
                    .unwrap_or_else(|| CalendarDate::at(memory.created_at, 0));
                (day, memory, line_cost(memory))
            })
            .collect();
        sorted.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.created_at.cmp(&a.1.created_at)).then(a.1.id.cmp(&b.1.id)));
        sorted
    }

    /// The share of `evidence` that is in `chosen`, itself or its copy (`--copies`).
    fn share(evidence: &[String], chosen: &HashSet<&str>) -> f64 {
        let found = evidence
            .iter()
            .filter(|id| chosen.contains(id.as_str()) || chosen.contains(format!("{id}{COPY_SUFFIX}").as_str()))
            .count();
        found as f64 / evidence.len() as f64
    }

    /// What a copy's id adds to its original's.
    const COPY_SUFFIX: &str = "~copy";

    /// Every `every`th memory copied into a note of its own (`Copies/` before its source), with all
    /// it says and its dates: a note copied, or a passage remembered again, as the same memory.
    fn add_copies(memories: &mut Vec<Memory>, every: usize) {
        let copies: Vec<Memory> = memories
            .iter()
            .step_by(every)
            .map(|memory| Memory {
                id: memory_agent::domain::MemoryId(format!("{}{COPY_SUFFIX}", memory.id.0)),
                source_path: format!("Copies/{}", memory.source_path),
                ..memory.clone()
            })
            .collect();
        memories.extend(copies);
    }

    fn mean(total: f64, count: usize) -> f64 {
        if count == 0 {
            0.0
        } else {
            total / count as f64
        }
    }

    /// Four decimals: stable figures, short lines.
    fn round(value: f64) -> f64 {
        (value * 10_000.0).round() / 10_000.0
    }

    /// The share of answered questions whose answer was in the packed text.
    fn in_context(figures: &Figures) -> f64 {
        mean(figures.in_context as f64, figures.answered)
    }

    fn print_table(
        overall: &BTreeMap<usize, Figures>,
        categories: &BTreeMap<String, BTreeMap<usize, Figures>>,
        millis: &BTreeMap<usize, f64>,
    ) {
        let answered = overall.values().any(|figures| figures.answered > 0);
        println!();
        print!(
            "{:>8}  {:>7}  {:>15}  {:>11}  {:>10}  {:>11}",
            "budget", "recall", "recent_baseline", "mean tokens", "max tokens", "ms/question"
        );
        if answered {
            print!("  {:>17}  {:>14}", "answer in context", "request tokens");
        }
        println!();
        for (budget, figures) in overall {
            print!(
                "{:>8}  {:>7.3}  {:>15.3}  {:>11.0}  {:>10}  {:>11.1}",
                budget,
                mean(figures.recall, figures.questions),
                mean(figures.baseline, figures.questions),
                mean(figures.tokens, figures.questions),
                figures.max_tokens,
                millis.get(budget).copied().unwrap_or(0.0),
            );
            if answered {
                print!("  {:>17.3}  {:>14.0}", in_context(figures), mean(figures.request_tokens, figures.asked));
            }
            println!();
        }
        if categories.is_empty() {
            println!();
            return;
        }
        println!();
        let header = if answered { "sel / recent / ctx" } else { "sel / recent" };
        let width = if answered { 25 } else { 17 };
        print!("{:>10}  {:>5}", "category", "n");
        for budget in overall.keys() {
            print!("  {:>width$}", format!("{budget}: {header}"));
        }
        println!();
        for (category, budgets) in categories {
            let count = budgets.values().next().map_or(0, |figures| figures.questions);
            print!("{category:>10}  {count:>5}");
            for budget in overall.keys() {
                let cell = budgets.get(budget).map_or_else(String::new, |figures| {
                    let (recall, baseline) =
                        (mean(figures.recall, figures.questions), mean(figures.baseline, figures.questions));
                    if answered {
                        format!("{recall:.3} / {baseline:.3} / {:.3}", in_context(figures))
                    } else {
                        format!("{recall:.3} / {baseline:.3}")
                    }
                });
                print!("  {cell:>width$}");
            }
            println!();
        }
        println!();
    }

    fn summary(
        overall: &BTreeMap<usize, Figures>,
        categories: &BTreeMap<String, BTreeMap<usize, Figures>>,
        memories: usize,
        questions: usize,
    ) -> Value {
        let mut budgets = Map::new();
        for (budget, figures) in overall {
            let mut entry = json!({
                "recall": round(mean(figures.recall, figures.questions)),
                "recent_baseline": round(mean(figures.baseline, figures.questions)),
                "mean_packed_tokens": round(mean(figures.tokens, figures.questions)),
                "max_packed_tokens": figures.max_tokens,
            });
            if figures.asked > 0 {
                entry["mean_request_tokens"] = json!(round(mean(figures.request_tokens, figures.asked)));
            }
            if figures.answered > 0 {
                entry["answer_in_context"] = json!(round(in_context(figures)));
                entry["answered_questions"] = json!(figures.answered);
            }
            budgets.insert(budget.to_string(), entry);
        }
        let mut out = json!({ "budgets": budgets, "questions": questions, "memories": memories });
        if !categories.is_empty() {
            let mut by_category = Map::new();
            for (category, per_budget) in categories {
                let mut entry = Map::new();
                for (budget, figures) in per_budget {
                    let mut figures_json = json!({
                        "recall": round(mean(figures.recall, figures.questions)),
                        "recent_baseline": round(mean(figures.baseline, figures.questions)),
                        "questions": figures.questions,
                    });
                    if figures.answered > 0 {
                        figures_json["answer_in_context"] = json!(round(in_context(figures)));
                    }
                    entry.insert(budget.to_string(), figures_json);
                }
                by_category.insert(category.clone(), Value::Object(entry));
            }
            out["categories"] = Value::Object(by_category);
        }
        out
    }
}
