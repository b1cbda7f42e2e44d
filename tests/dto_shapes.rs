//! The TypeScript interfaces of `src/wasm/types.rs` against what Rust really sends: each DTO the
//! facade returns, taken from a real engine run and serialized with serde, has exactly the
//! keys its interface declares (every required one, none undeclared). A field renamed or added
//! on one side only fails here, not at run time in the plugin.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use memory_agent::domain::{Memory, MemoryId, Millis};
use memory_agent::engine::{Engine, IngestFile};
use memory_agent::llm::RetryPolicy;
use memory_agent::notes::PlacedMemory;
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::{open_from_bytes, MemoryFilter, MemoryQuery};
use serde::Serialize;
use serde_json::Value;
use support::fake_model;
use support::test_host::TestHost;
use support::virtual_time::run;

/// The declarations the facade adds to the generated `memory_agent.d.ts`.
const TYPES: &str = include_str!("../src/wasm/types.rs");

/// 2026-11-30T08:00:00Z
const NOW: Millis = 1_796_025_600_000;

/// `text` without `/* … */` and `// …` comments.
fn without_comments(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
        } else if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
        } else {
            let next = rest.chars().next().unwrap_or_default();
            kept.push(next);
            rest = &rest[next.len_utf8()..];
        }
    }
    kept
}

/// The top-level fields of `export interface {name} { … }`, or of `export type {name} = Base &
/// { … }` (with the fields of `Base`'s first arm, for a union of objects such as `JobWork`):
/// name → whether it is optional.
fn interface_fields(name: &str) -> BTreeMap<String, bool> {
    let source = without_comments(TYPES);
    if let Some(at) = source.find(&format!("export interface {name} {{")) {
        return object_fields(&source[at + format!("export interface {name} {{").len()..], name);
    }
    let alias = format!("export type {name} = ");
    let at =
        source.find(&alias).unwrap_or_else(|| panic!("types.rs declares no interface or type {name}")) + alias.len();
    let definition = &source[at..];
    let (base, rest) = definition.split_once(" & {").unwrap_or_else(|| panic!("{name} is not `Base & {{ … }}`"));
    let mut fields = object_fields(rest, name);
    let base = base.trim();
    let base_at = source.find(&format!("export type {base} =")).unwrap_or_else(|| panic!("no type {base}"));
    let first_arm = source[base_at..].find('{').expect("an object arm") + base_at + 1;
    fields.extend(object_fields(&source[first_arm..], base));
    fields
}

/// The top-level fields of the object type whose body starts at `body` (just after its `{`).
fn object_fields(body: &str, name: &str) -> BTreeMap<String, bool> {
    let mut fields = BTreeMap::new();
    let mut member = String::new();
    let mut depth = 0_i32;
    let mut previous = ' ';
    let mut add = |member: &str| {
        let member = member.trim();
        if member.is_empty() {
            return;
        }
        let field: String = member.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let optional = member[field.len()..].trim_start().starts_with('?');
        assert!(!field.is_empty(), "{name}: cannot read the member {member:?}");
        fields.insert(field, optional);
    };
    for c in body.chars() {
        match c {
            '}' if depth == 0 => break,
            '{' | '(' | '[' | '<' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            '>' if previous != '=' => depth -= 1,
            ';' | '\n' if depth == 0 => {
                add(&member);
                member.clear();
                previous = c;
                continue;
            }
            _ => {}
        }
        member.push(c);
        previous = c;
    }
    add(&member);
    fields
}

/// `value` serialized as the facade sends it has the keys of `interface`: all its required
/// ones, and none it does not declare.
fn assert_shape(interface: &str, value: &impl Serialize) {
    let json = serde_json::to_value(value).unwrap();
    let Value::Object(object) = &json else { panic!("{interface}: Rust sends {json}, not an object") };
    let declared = interface_fields(interface);
    let sent: BTreeSet<&str> = object.keys().map(String::as_str).collect();
    let undeclared: Vec<&str> = sent.iter().copied().filter(|key| !declared.contains_key(*key)).collect();
    let never_sent: Vec<&str> = declared
        .iter()
        .filter(|(key, optional)| !**optional && !sent.contains(key.as_str()))
        .map(|(key, _)| key.as_str())
        .collect();
    assert!(
        undeclared.is_empty() && never_sent.is_empty(),
        "interface {interface} in src/wasm/types.rs and the Rust type disagree: sent but not declared {undeclared:?}, \
         declared but never sent {never_sent:?}"
    );
}

fn first(values: &Value, what: &str) -> Value {
    values.get(0).cloned().unwrap_or_else(|| panic!("the run made no {what}"))
}

type TestEngine = Rc<Engine<RusqliteDriver>>;

/// An engine that remembered five notes with the scripted model (and so made an insight).
fn remembering_engine(host: &TestHost) -> (TestEngine, memory_agent::engine::RunReport) {
    host.bedrock.respond_with(fake_model::answer);
    let store = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    let engine = Rc::new(Engine::new(store, 42, NOW).unwrap());
    let connection =
        support::connection::test_connection(RetryPolicy { max_attempts: 2, base_delay_ms: 100, max_delay_ms: 1_000 });
    engine.configure_connection(Some(connection), 7).unwrap();
    for (index, name) in ["Alice", "Bob", "Carol", "Alice again", "Bob again"].iter().enumerate() {
        host.write(&format!("n{index}.md"), &format!("# Launch\n\nMet {name} about the launch."));
        engine.enqueue_note(&format!("n{index}.md"), NOW).unwrap();
    }
    let (host2, engine2) = (host.clone(), engine.clone());
    let report = run(&host.clock, async move { engine2.run_due_work(&host2).await.unwrap() });
    (engine, report)
}

#[test]
fn what_the_store_sends_has_the_keys_types_rs_declares() {
    let host = TestHost::new(NOW);
    let (engine, report) = remembering_engine(&host);
    let store = engine.store();
    assert_shape("RunReport", &report);
    assert_shape("Progress", &engine.progress().unwrap());

    // Every memory the facade sends goes out placed: with its `fileKind` and `page`.
    let memories: Vec<Memory> = engine.list_memories(&MemoryFilter::default()).unwrap();
    let placed = PlacedMemory::from(memories.first().expect("a memory").clone());
    let memory = serde_json::to_value(&placed).unwrap();
    assert_shape("Memory", &memory);
    assert_shape("Position", &memory["position"]);
    assert_shape("Entity", &first(&memory["entities"], "entity"));

    let insight = serde_json::to_value(store.list_consolidations(0, 0).unwrap()).unwrap();
    assert_shape("Insight", &first(&insight, "insight"));
    assert_shape("Connection", &first(&first(&insight, "insight")["connections"], "connection"));

    let page = engine.browse_memories(&MemoryQuery { limit: 1, ..MemoryQuery::default() }).unwrap();
    assert_shape("Memory", &first(&serde_json::to_value(&page).unwrap()["memories"], "memory"));
    assert_shape("MemoryPage", &page);
    assert_shape("MemoryCursor", &page.next.expect("a second page"));
    assert_shape("InsightPage", &store.browse_insights(None, 1).unwrap());

    assert_shape("Source", &first(&serde_json::to_value(store.list_sources().unwrap()).unwrap(), "source"));
    host.write("later.md", "Met Dana about the launch.");
    engine.enqueue_note("later.md", NOW).unwrap();
    assert_shape("Job", &first(&serde_json::to_value(store.list_jobs_limited(None, 10).unwrap()).unwrap(), "job"));

    let files = [("a.md", None), ("Papers/b.pdf", Some(2)), ("c.png", None)].map(|(path, pages)| IngestFile {
        path: path.into(),
        size: 3_000,
        pages,
    });
    assert_shape("IngestEstimate", &engine.estimate_ingest(&files));
    assert_shape("Integrity", &store.check_integrity().unwrap());
    assert_shape("Compaction", &store.compact().unwrap());
    let theirs = open_from_bytes(&[], RusqliteDriver::from_bytes).unwrap();
    assert_shape("MergeReport", &engine.merge_copy_rechecking(&theirs, Some(NOW)).unwrap());
    assert_shape("Removal", &engine.forget_memory(&MemoryId(memory["id"].as_str().unwrap().to_owned())).unwrap());

    // The facade's status is the store's counts and the engine's state: every count is declared.
    let counts = serde_json::to_value(store.status().unwrap()).unwrap();
    let declared = interface_fields("CoreStatus");
    let undeclared: Vec<&String> =
        counts.as_object().unwrap().keys().filter(|key| !declared.contains_key(*key)).collect();
    assert!(undeclared.is_empty(), "CoreStatus lacks the store's counts {undeclared:?}");
}

#[test]
fn an_answer_has_the_keys_types_rs_declares() {
    let host = TestHost::new(NOW);
    let (engine, _) = remembering_engine(&host);
    let (host2, engine2) = (host.clone(), engine.clone());
    let answer =
        run(&host.clock, async move { engine2.ask(&host2, "What happened at the launch?", false).await.unwrap() });
    let answer = serde_json::to_value(answer).unwrap();
    assert_shape("QueryAnswer", &answer);
    assert_shape("Citation", &first(&answer["citations"], "citation"));
    assert_shape("TokenUsage", &answer["cost"]["usage"]);
}

#[test]
fn what_the_device_log_sends_has_the_keys_types_rs_declares() {
    use memory_agent::device::{LogReplay, LogSync, ReplayProblem, ReplayProgress};
    assert_shape("LogSync", &LogSync::default());
    let problem = ReplayProblem {
        path: "Memory Agent/device-b/000001.jsonl".into(),
        unreadable: 1,
        first_skipped: Some(memory_agent::store::SkippedLine {
            byte: 120,
            line: Some(2),
            reason: "importance 1.5 is outside 0..1".into(),
        }),
        newer: false,
        error: Some("unreadable".into()),
    };
    assert_shape("ReplayProblem", &problem);
    assert_shape("SkippedLine", problem.first_skipped.as_ref().unwrap());
    assert_shape("LogReplay", &LogReplay { problems: vec![problem], ..LogReplay::default() });
    assert_shape("ReplayProgress", &ReplayProgress::default());
}

#[test]
fn the_reader_of_types_rs_sees_optional_and_nested_fields() {
    let fields = interface_fields("QueryAnswer");
    assert_eq!(fields.get("considered"), Some(&false), "a nested object type is one field");
    assert!(!fields.contains_key("memoriesTotal"), "its inner fields are not the interface's");
    assert_eq!(interface_fields("TextToRemember").get("sourcePath"), Some(&true));
    assert_eq!(
        interface_fields("Integrity"),
        BTreeMap::from([("repairedIndex".to_owned(), false), ("unfinished".to_owned(), false)])
    );
    let job = interface_fields("Job");
    assert!(job.contains_key("kind") && job.contains_key("payload") && job.contains_key("attempts"), "{job:?}");
}

/// Whether decoding `interface`'s field `field` reaches the Rust type `T`: an object with that
/// field set to a value of the wrong kind decodes differently from one without it. Serde
/// ignores fields it does not know, so a field the plugin sends under a name Rust does not
/// read would otherwise be dropped without a word.
fn rust_reads<T: serde::de::DeserializeOwned>(field: &str) -> bool {
    let outcome = |value: Value| serde_json::from_value::<T>(value).map(|_| ()).map_err(|error| error.to_string());
    let without = outcome(serde_json::json!({}));
    [serde_json::json!(true), serde_json::json!("x")]
        .into_iter()
        .any(|wrong| outcome(serde_json::json!({ field: wrong })) != without)
}

fn assert_read<T: serde::de::DeserializeOwned>(interface: &str) {
    let ignored: Vec<String> =
        interface_fields(interface).into_keys().filter(|field| !rust_reads::<T>(field)).collect();
    assert!(
        ignored.is_empty(),
        "interface {interface} in src/wasm/types.rs declares fields Rust does not read: {ignored:?}"
    );
}

#[test]
fn what_the_plugin_sends_is_read_by_rust_field_by_field() {
    assert_read::<memory_agent::engine::TextToRemember>("TextToRemember");
    assert_read::<memory_agent::agents::query::EarlierTurn>("EarlierTurn");
    assert_read::<memory_agent::agents::query::QuestionScope>("QuestionScope");
    assert_read::<MemoryQuery>("MemoryQuery");
    assert_read::<IngestFile>("IngestFile");
    assert_read::<memory_agent::engine::EngineSettings>("EngineSettings");
    assert_read::<memory_agent::notes::ScopeRules>("CoreScopeRules");
    // The host's listing of a folder, for the device log.
    assert_read::<memory_agent::device::Listing>("VaultListing");
    // The probe tells a field Rust reads from one it ignores.
    assert!(!rust_reads::<MemoryQuery>("notAField"));
}
