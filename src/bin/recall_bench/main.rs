//! `recall-bench`: how much of the evidence for each question the QueryAgent's selection
//! puts into the prompt, at several budgets, against packing the most recent memories.
//!
//! It runs `select::select_context` — the very function the plugin calls — over an
//! in-memory SQLite store (rusqlite, the same SQL as sql.js) loaded from JSON lines. The
//! last line printed is one JSON object for scripts; everything above it is for people.
//!
//! ```text
//! recall-bench --memories FILE --questions FILE [--budgets 4000,16000,32000] [--date-order day-month|month-day]
//!              [--misses]   (also print each question that misses evidence, with its plan)
//! recall-bench --generate DIR [--seed N] [--days N]
//! ```

#[cfg(not(target_arch = "wasm32"))]
mod chats;
#[cfg(not(target_arch = "wasm32"))]
mod data;
#[cfg(not(target_arch = "wasm32"))]
mod generate;

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
    use std::collections::{BTreeMap, HashMap, HashSet};

    use memory_agent::agents::planner::plan_from_tool;
    use memory_agent::calendar::CalendarDate;
    use memory_agent::domain::Memory;
    use memory_agent::select::{
        insight_cost, line_cost, select_context, DateOrder, NameCache, QueryPlan, SelectionRequest,
    };
    use memory_agent::store::rusqlite_driver::RusqliteDriver;
    use memory_agent::store::Store;
    use serde_json::{json, Map, Value};

    use super::data::{load_memories, load_questions, Question};
    use super::generate;

    const USAGE: &str = "usage: recall-bench --memories FILE --questions FILE [--budgets 4000,16000,32000] \
[--date-order day-month|month-day] [--misses]\n       recall-bench --generate DIR [--seed N] [--days N]\n       recall-bench --generate-chats DIR [--seed N]\n       recall-bench   (no arguments: the synthetic notes, the synthetic conversations and the tldr-pages set)";

    /// The figures of one budget.
    #[derive(Default)]
    struct Figures {
        recall: f64,
        baseline: f64,
        tokens: f64,
        max_tokens: usize,
        questions: usize,
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
        let budgets: Vec<usize> = option("--budgets")
            .unwrap_or("4000,16000,32000")
            .split(',')
            .map(|budget| budget.trim().parse().map_err(|_| format!("bad budget \"{budget}\"")))
            .collect::<Result<_, _>>()?;
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
        let settings = Settings { budgets, date_order, show_misses, plans };
        let files_named = args.iter().any(|arg| arg == "--memories" || arg == "--questions");
        match (option("--memories"), option("--questions")) {
            (Some(memories), Some(questions)) => {
                let summary = evaluate(memories, questions, &settings)?;
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
        let Settings { budgets, date_order, show_misses, plans } = settings;
        let (date_order, show_misses) = (*date_order, *show_misses);
        let memories = load_memories(memories_path)?;
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
                let (recall, tokens, plan) = select_recall(&store, &names, question, date_order, budget, hint)?;
                if show_misses && recall < 1.0 {
                    println!(
                        "miss at {budget}: {} {:?} recall {recall:.2} plan {plan}",
                        question.id, question.question
                    );
                }
                let baseline = recent_recall(&by_recency, question, budget);
                let add = |figures: &mut Figures| {
                    figures.recall += recall;
                    figures.baseline += baseline;
                    figures.tokens += tokens as f64;
                    figures.max_tokens = figures.max_tokens.max(tokens);
                    figures.questions += 1;
                };
                add(overall.entry(budget).or_default());
                if let Some(category) = &question.category {
                    add(categories.entry(category.clone()).or_default().entry(budget).or_default());
                }
            }
            millis.insert(budget, started.elapsed().as_secs_f64() * 1000.0 / questions.len() as f64);
        }
        print_table(&overall, &categories, &millis, memories.len(), questions.len());
        Ok(summary(&overall, &categories, memories.len(), questions.len()))
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
    ) -> Result<(f64, usize, Value), String> {
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
        let counted: usize = packed.memories.iter().map(line_cost).sum::<usize>()
            + packed.insights.iter().map(insight_cost).sum::<usize>();
        if counted != packed.tokens || counted > budget {
            return Err(format!(
                "question {}: packed {counted} tokens (reported {}) for a budget of {budget}",
                question.id, packed.tokens
            ));
        }
        let chosen: HashSet<&str> = packed.memories.iter().map(|memory| memory.id.0.as_str()).collect();
        let plan = serde_json::to_value(&selection.plan).unwrap_or(Value::Null);
        Ok((share(&question.evidence, &chosen), counted, plan))
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

    /// The share of `evidence` that is in `chosen`.
    fn share(evidence: &[String], chosen: &HashSet<&str>) -> f64 {
        let found = evidence.iter().filter(|id| chosen.contains(id.as_str())).count();
        found as f64 / evidence.len() as f64
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

    fn print_table(
        overall: &BTreeMap<usize, Figures>,
        categories: &BTreeMap<String, BTreeMap<usize, Figures>>,
        millis: &BTreeMap<usize, f64>,
        memories: usize,
        questions: usize,
    ) {
        println!("recall-bench: {questions} questions over {memories} memories (select::select_context)");
        println!();
        println!(
            "{:>8}  {:>7}  {:>15}  {:>11}  {:>10}  {:>11}",
            "budget", "recall", "recent_baseline", "mean tokens", "max tokens", "ms/question"
        );
        for (budget, figures) in overall {
            println!(
                "{:>8}  {:>7.3}  {:>15.3}  {:>11.0}  {:>10}  {:>11.1}",
                budget,
                mean(figures.recall, figures.questions),
                mean(figures.baseline, figures.questions),
                mean(figures.tokens, figures.questions),
                figures.max_tokens,
                millis.get(budget).copied().unwrap_or(0.0),
            );
        }
        if categories.is_empty() {
            println!();
            return;
        }
        println!();
        print!("{:>10}  {:>5}", "category", "n");
        for budget in overall.keys() {
            print!("  {:>17}", format!("{budget}: sel / recent"));
        }
        println!();
        for (category, budgets) in categories {
            let count = budgets.values().next().map_or(0, |figures| figures.questions);
            print!("{category:>10}  {count:>5}");
            for budget in overall.keys() {
                let figures = budgets.get(budget);
                let (recall, baseline) = figures.map_or((0.0, 0.0), |figures| {
                    (mean(figures.recall, figures.questions), mean(figures.baseline, figures.questions))
                });
                print!("  {:>17}", format!("{recall:.3} / {baseline:.3}"));
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
            budgets.insert(
                budget.to_string(),
                json!({
                    "recall": round(mean(figures.recall, figures.questions)),
                    "recent_baseline": round(mean(figures.baseline, figures.questions)),
                    "mean_packed_tokens": round(mean(figures.tokens, figures.questions)),
                    "max_packed_tokens": figures.max_tokens,
                }),
            );
        }
        let mut out = json!({ "budgets": budgets, "questions": questions, "memories": memories });
        if !categories.is_empty() {
            let mut by_category = Map::new();
            for (category, per_budget) in categories {
                let mut entry = Map::new();
                for (budget, figures) in per_budget {
                    entry.insert(
                        budget.to_string(),
                        json!({
                            "recall": round(mean(figures.recall, figures.questions)),
                            "recent_baseline": round(mean(figures.baseline, figures.questions)),
                            "questions": figures.questions,
                        }),
                    );
                }
                by_category.insert(category.clone(), Value::Object(entry));
            }
            out["categories"] = Value::Object(by_category);
        }
        out
    }
}
