//! A synthetic vault for the benchmark: two years of daily notes, meetings with recurring
//! people, project updates, appointments and one-off facts — mostly English, some
//! Vietnamese — and questions about dates, people, latest events and facts (also
//! paraphrased without the note's key words), each with the ids of the memories that answer
//! it and a category.
//!
//! Deterministic from the seed: a SplitMix64 generator (no randomness crate), and every
//! list is walked in a fixed order. A quarter of the memories lack entities, some lack
//! topics or importance, so the selection is also measured on bare text, date and source.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use memory_agent::calendar::CalendarDate;
use memory_agent::select::MONTH_NAMES;
use serde_json::{json, Value};

/// The last day of the generated notes; the data runs `days` days up to it.
const LAST_DAY: (i32, u32, u32) = (2026, 11, 29);

/// Writes `memories.jsonl` and `questions.jsonl` into `dir`; returns how many of each.
pub fn write(dir: &str, seed: u64, days: u32) -> Result<(usize, usize), String> {
    if days < 14 {
        return Err("--days must be at least 14".into());
    }
    let vault = Vault::generate(seed, days);
    let dir = Path::new(dir);
    fs::create_dir_all(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    let mut memories = String::new();
    for memory in &vault.memories {
        let _ = writeln!(memories, "{}", memory.record);
    }
    let mut questions = String::new();
    for question in &vault.questions {
        let _ = writeln!(questions, "{question}");
    }
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        fs::write(&path, text).map_err(|error| format!("{}: {error}", path.display()))
    };
    write("memories.jsonl", &memories)?;
    write("questions.jsonl", &questions)?;
    Ok((vault.memories.len(), vault.questions.len()))
}

/// SplitMix64: tiny, fast, and good enough to shuffle a synthetic vault.
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }

    fn chance(&mut self, probability: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= probability
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn between(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

struct Person {
    full: &'static str,
    first: &'static str,
    role: &'static str,
    cadence: i64,
    vietnamese: bool,
    projects: [usize; 2],
}

const PEOPLE: &[Person] = &[
    Person {
        full: "Alice Nguyen",
        first: "Alice",
        role: "product manager",
        cadence: 7,
        vietnamese: false,
        projects: [0, 5],
    },
    Person {
        full: "Bob Tran",
        first: "Bob",
        role: "backend engineer",
        cadence: 14,
        vietnamese: false,
        projects: [1, 5],
    },
    Person { full: "Carol Smith", first: "Carol", role: "designer", cadence: 14, vietnamese: false, projects: [0, 5] },
    Person { full: "Dan Pham", first: "Dan", role: "CTO", cadence: 21, vietnamese: false, projects: [1, 4] },
    Person {
        full: "Emma Laurent",
        first: "Emma",
        role: "marketing lead",
        cadence: 28,
        vietnamese: false,
        projects: [0, 4],
    },
    Person {
        full: "Frank Miller",
        first: "Frank",
        role: "client at Contoso",
        cadence: 30,
        vietnamese: false,
        projects: [5, 1],
    },
    Person {
        full: "Grace Okafor",
        first: "Grace",
        role: "data scientist",
        cadence: 14,
        vietnamese: false,
        projects: [1, 0],
    },
    Person { full: "Hieu Hoang", first: "Hieu", role: "mentor", cadence: 30, vietnamese: false, projects: [2, 4] },
    Person { full: "Ivy Chen", first: "Ivy", role: "recruiter", cadence: 21, vietnamese: false, projects: [2, 3] },
    Person { full: "Jonas Berg", first: "Jonas", role: "investor", cadence: 45, vietnamese: false, projects: [4, 0] },
    Person {
        full: "Đặng Thùy Linh", first: "Linh", role: "kế toán", cadence: 14, vietnamese: true, projects: [4, 3]
    },
    Person {
        full: "Bùi Quang Minh",
        first: "Minh",
        role: "trưởng nhóm vận hành",
        cadence: 21,
        vietnamese: true,
        projects: [3, 1],
    },
];

const PROJECTS: &[(&str, &str)] = &[
    ("Apollo", "mobile app launch"),
    ("Borealis", "data platform migration"),
    ("Cedar", "hiring plan"),
    ("Delta", "office move"),
    ("Ember", "budget review"),
    ("Fjord", "customer portal"),
];

const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Daily,
    Meeting,
    /// Lunch or coffee with someone: meeting them, informally.
    Lunch,
    Email,
    Update,
    Appointment(usize),
    Fact,
}

/// A generated memory and what the questions need to know about it.
struct Generated {
    day: CalendarDate,
    kind: Kind,
    person: Option<usize>,
    project: Option<usize>,
    record: Value,
}

struct Vault {
    memories: Vec<Generated>,
    questions: Vec<Value>,
}

/// A fact and the questions that ask for it, written together: one with the note's own
/// key words, one paraphrased without them (what a full-text search alone cannot see).
struct Fact {
    text: String,
    question: String,
    paraphrase: String,
    topic: &'static str,
    source: String,
    person: Option<usize>,
    vietnamese: bool,
}

impl Vault {
    fn generate(seed: u64, days: u32) -> Vault {
        let mut rng = Rng(seed ^ 0x6d65_6d6f_7279);
        let last = CalendarDate::new(LAST_DAY.0, LAST_DAY.1, LAST_DAY.2).unwrap_or(CalendarDate::from_days(20_786));
        let first = last.add_days(-(i64::from(days) - 1));
        let mut drafts: Vec<Draft> = Vec::new();
        daily_notes(&mut rng, first, last, &mut drafts);
        meetings(&mut rng, first, last, &mut drafts);
        project_updates(&mut rng, first, last, &mut drafts);
        appointments(&mut rng, first, last, &mut drafts);
        let facts = facts(&mut rng);
        let mut fact_ids = Vec::new();
        for fact in &facts {
            let day = first.add_days(rng.below(days as usize) as i64);
            fact_ids.push(drafts.len());
            drafts.push(Draft {
                day,
                kind: Kind::Fact,
                person: fact.person,
                project: None,
                text: fact.text.clone(),
                source: fact.source.clone(),
                entities: fact
                    .person
                    .map(|person| vec![(PEOPLE[person].full.to_owned(), "person")])
                    .unwrap_or_default(),
                topics: vec![fact.topic.to_owned()],
                importance: rng.between(0.5, 0.8),
                vietnamese: fact.vietnamese,
            });
        }
        // Ids in date order, like a vault read from the oldest note on.
        let mut order: Vec<usize> = (0..drafts.len()).collect();
        order.sort_by_key(|&index| (drafts[index].day, index));
        let mut id_of = vec![String::new(); drafts.len()];
        let mut memories = Vec::with_capacity(drafts.len());
        for (position, &index) in order.iter().enumerate() {
            let id = format!("m{:05}", position + 1);
            id_of[index] = id.clone();
            memories.push(drafts[index].finish(&mut rng, id));
        }
        let fact_questions: Vec<(String, String, String)> = facts
            .iter()
            .zip(&fact_ids)
            .map(|(fact, &index)| (fact.question.clone(), fact.paraphrase.clone(), id_of[index].clone()))
            .collect();
        let mut questions = Questions { rng: &mut rng, memories: &memories, first, last, out: Vec::new() };
        questions.dates();
        questions.people();
        questions.latest();
        questions.facts(&fact_questions);
        let questions = questions.out;
        Vault { memories, questions }
    }
}

/// A memory before it has an id.
struct Draft {
    day: CalendarDate,
    kind: Kind,
    person: Option<usize>,
    project: Option<usize>,
    text: String,
    source: String,
    entities: Vec<(String, &'static str)>,
    topics: Vec<String>,
    importance: f64,
    vietnamese: bool,
}

impl Draft {
    /// The JSON record, with some fields left out or written differently, as real input
    /// files would have them.
    fn finish(&self, rng: &mut Rng, id: String) -> Generated {
        let date = if rng.chance(0.3) {
            let offset = if self.vietnamese || rng.chance(0.5) { "+07:00" } else { "Z" };
            format!("{}T{:02}:{:02}:00{offset}", self.day, 7 + rng.below(14), rng.below(60))
        } else {
            self.day.to_string()
        };
        let mut record = json!({ "id": id, "text": self.text, "date": date, "source": self.source });
        if !self.entities.is_empty() && rng.chance(0.75) {
            let names = rng.chance(0.5);
            let entities: Vec<Value> = self
                .entities
                .iter()
                .map(|(name, kind)| if names { json!(name) } else { json!({ "name": name, "kind": kind }) })
                .collect();
            record["entities"] = Value::Array(entities);
        }
        if rng.chance(0.7) {
            record["topics"] = json!(self.topics);
        }
        if rng.chance(0.8) {
            record["importance"] = json!((self.importance * 100.0).round() / 100.0);
        }
        Generated { day: self.day, kind: self.kind, person: self.person, project: self.project, record }
    }
}

fn days_between(first: CalendarDate, last: CalendarDate) -> impl Iterator<Item = CalendarDate> {
    (first.to_days()..=last.to_days()).map(CalendarDate::from_days)
}

fn daily_notes(rng: &mut Rng, first: CalendarDate, last: CalendarDate, out: &mut Vec<Draft>) {
    const TASKS: &[&str] = &[
        "fixing bugs in the login flow",
        "writing the onboarding guide",
        "reviewing pull requests",
        "planning the next sprint",
        "testing the sync engine",
        "cleaning up the billing page",
        "profiling the search index",
        "answering support emails",
        "sketching the export tool",
    ];
    const MOODS: &[&str] = &[
        "Felt productive",
        "Tired after a short night",
        "Good focus in the morning",
        "Too many interruptions",
        "A calm, steady day",
        "Slow start, strong finish",
    ];
    const EVENINGS: &[&str] = &[
        "Went for a run along the river",
        "Cooked a curry for dinner",
        "Read a few chapters before bed",
        "Called mum for an hour",
        "Went to the evening yoga class",
        "Watched a documentary about glaciers",
        "Walked to the night market",
        "Practised guitar",
        "Repotted the fig tree on the balcony",
    ];
    const AFTERNOONS: &[&str] = &[
        "paired with a colleague on it",
        "mostly blocked by a flaky test",
        "good progress before the stand-up",
        "wrote notes for the retro",
        "spent an hour on code review",
    ];
    const LEARNINGS: &[&str] = &[
        "SQLite full-text search ranks nothing by itself, BM25 has to be computed",
        "sourdough needs a longer proof when the kitchen is cold",
        "the Pomodoro technique works better with 50-minute blocks for me",
        "Vietnamese has six tones in the northern dialect",
        "compound interest doubles money in about 72 divided by the rate years",
        "fig trees like to be slightly root-bound",
        "a good retro asks what to stop doing, not only what to start",
        "the Rust borrow checker is happier with smaller functions",
    ];
    const PLACES: &[&str] = &["the noodle bar", "Blue Door Cafe", "the park", "the office canteen", "Pho 24"];
    const SMALL_TALK: &[&str] = &[
        "talked about the summer holidays",
        "is training for a marathon",
        "recommended a podcast about history",
        "complained about the commute",
        "showed photos of the new flat",
        "is learning to play chess",
    ];
    const EMAILS: &[&str] = &[
        "asks for the updated figures by Friday",
        "shares the minutes of the last review",
        "proposes to push the deadline",
        "wants feedback on the draft",
        "forwards a question from legal",
        "confirms the budget numbers",
    ];
    const TASKS_VN: &[&str] =
        &["sửa lỗi đăng nhập", "viết tài liệu hướng dẫn", "lên kế hoạch sprint", "kiểm thử bản mới"];
    const MOODS_VN: &[&str] = &["Làm việc hiệu quả", "Hơi mệt", "Tập trung tốt buổi sáng", "Một ngày bình yên"];
    const EVENINGS_VN: &[&str] = &["Chạy bộ quanh hồ", "Nấu phở cho bữa tối", "Gọi điện cho mẹ", "Đi chợ đêm"];
    for day in days_between(first, last) {
        let project = rng.below(PROJECTS.len());
        let vietnamese = rng.chance(0.15);
        let text = if vietnamese {
            format!(
                "Ghi chú trong ngày: làm dự án {} ({}). {}. {}.",
                PROJECTS[project].0,
                rng.pick(TASKS_VN),
                rng.pick(MOODS_VN),
                rng.pick(EVENINGS_VN)
            )
        } else {
            format!(
                "Daily note: worked on {} ({}), {}. {}.",
                PROJECTS[project].0,
                PROJECTS[project].1,
                rng.pick(TASKS),
                rng.pick(MOODS)
            )
        };
        let source = format!("Daily/{day}.md");
        out.push(Draft {
            day,
            kind: Kind::Daily,
            person: None,
            project: Some(project),
            text,
            source: source.clone(),
            entities: vec![(PROJECTS[project].0.to_owned(), "thing")],
            topics: vec!["daily".into()],
            importance: rng.between(0.2, 0.35),
            vietnamese,
        });
        if rng.chance(0.45) {
            let other = rng.below(PROJECTS.len());
            out.push(Draft {
                day,
                kind: Kind::Daily,
                person: None,
                project: Some(other),
                text: format!("Afternoon: {} for {}; {}.", rng.pick(TASKS), PROJECTS[other].0, rng.pick(AFTERNOONS)),
                source: source.clone(),
                entities: vec![(PROJECTS[other].0.to_owned(), "thing")],
                topics: vec!["work".into()],
                importance: rng.between(0.2, 0.35),
                vietnamese: false,
            });
        }
        if rng.chance(0.5) {
            let text = if vietnamese {
                format!("Buổi tối: {}.", rng.pick(EVENINGS_VN))
            } else {
                format!("Evening: {}.", rng.pick(EVENINGS))
            };
            out.push(Draft {
                day,
                kind: Kind::Daily,
                person: None,
                project: None,
                text,
                source: source.clone(),
                entities: vec![],
                topics: vec!["personal".into()],
                importance: rng.between(0.1, 0.3),
                vietnamese,
            });
        }
        if rng.chance(0.2) {
            let person = rng.below(PEOPLE.len());
            let (full, first) = (PEOPLE[person].full, PEOPLE[person].first);
            let text = match rng.below(3) {
                0 => format!("Lunch with {full} at {}; {first} {}.", rng.pick(PLACES), rng.pick(SMALL_TALK)),
                1 => format!("Coffee with {first} at {}: {first} {}.", rng.pick(PLACES), rng.pick(SMALL_TALK)),
                _ => format!("Quick walk with {full}; {first} {}.", rng.pick(SMALL_TALK)),
            };
            out.push(Draft {
                day,
                kind: Kind::Lunch,
                person: Some(person),
                project: None,
                text,
                source: source.clone(),
                entities: vec![(full.to_owned(), "person")],
                topics: vec!["social".into()],
                importance: rng.between(0.2, 0.4),
                vietnamese: false,
            });
        }
        if rng.chance(0.5) {
            let person = rng.below(PEOPLE.len());
            let project = PEOPLE[person].projects[rng.below(2)];
            out.push(Draft {
                day,
                kind: Kind::Email,
                person: Some(person),
                project: Some(project),
                text: format!(
                    "Email from {} about {}: {}.",
                    PEOPLE[person].full,
                    PROJECTS[project].0,
                    rng.pick(EMAILS)
                ),
                source: format!("Inbox/{day}.md"),
                entities: vec![(PEOPLE[person].full.to_owned(), "person"), (PROJECTS[project].0.to_owned(), "thing")],
                topics: vec!["email".into()],
                importance: rng.between(0.2, 0.45),
                vietnamese: false,
            });
        }
        if rng.chance(0.2) {
            out.push(Draft {
                day,
                kind: Kind::Daily,
                person: None,
                project: None,
                text: format!("Learned something: {}.", rng.pick(LEARNINGS)),
                source,
                entities: vec![],
                topics: vec!["learning".into()],
                importance: rng.between(0.2, 0.5),
                vietnamese: false,
            });
        }
    }
}

fn meetings(rng: &mut Rng, first: CalendarDate, last: CalendarDate, out: &mut Vec<Draft>) {
    const FORMS: &[&str] = &["1:1", "Meeting", "Call", "Lunch meeting", "Video call"];
    const MILESTONES: &[&str] = &["beta", "launch", "demo", "design review", "rollout"];
    const METRICS: &[&str] = &["signup", "churn", "latency", "cloud cost", "revenue"];
    const RISKS: &[&str] = &["the deadline", "security", "the budget", "hiring", "vendor lock-in"];
    const VENDORS: &[&str] = &["Acme Cloud", "Northwind", "Globex", "Initech"];
    const DOCS: &[&str] =
        &["rollout plan", "budget sheet", "design spec", "hiring brief", "status report", "contract draft"];
    for (index, person) in PEOPLE.iter().enumerate() {
        let mut day = first.add_days(rng.below(person.cadence as usize) as i64);
        while day <= last {
            // Meetings fall on weekdays; some are skipped.
            let weekday = i64::from(day.weekday());
            let meeting_day = if weekday >= 5 { day.add_days(7 - weekday) } else { day };
            if meeting_day <= last && rng.chance(0.9) {
                let project = person.projects[usize::from(rng.chance(0.35))];
                let (name, what) = PROJECTS[project];
                let other = PEOPLE[rng.below(PEOPLE.len())].first;
                let text = if person.vietnamese {
                    let decision = match rng.below(4) {
                        0 => format!("thống nhất dời {} sang tuần sau", rng.pick(MILESTONES)),
                        1 => format!("quyết định giảm ngân sách quý {} đi {}%", 1 + rng.below(4), 5 + rng.below(20)),
                        2 => format!("rà soát chi phí, tăng {}% so với tháng trước", 2 + rng.below(15)),
                        _ => format!("{} lo ngại về tiến độ", person.first),
                    };
                    format!(
                        "Họp với {} ({}) về dự án {name}: {decision}. Việc tiếp theo: {} sẽ gửi {}.",
                        person.full,
                        person.role,
                        person.first,
                        rng.pick(&["bảng ngân sách", "báo cáo tiến độ", "hợp đồng", "kế hoạch chuyển văn phòng"])
                    )
                } else {
                    let decision = match rng.below(5) {
                        0 => format!(
                            "agreed to move the {name} {} to {}",
                            rng.pick(MILESTONES),
                            rng.pick(&WEEKDAYS[..5])
                        ),
                        1 => format!("decided to cut the {name} scope by {}%", 5 + rng.below(30)),
                        2 => format!(
                            "reviewed the {} numbers, up {}% since last month",
                            rng.pick(METRICS),
                            1 + rng.below(20)
                        ),
                        3 => format!("{} raised a concern about {}", person.first, rng.pick(RISKS)),
                        _ => format!("we chose {} as the vendor for {name}", rng.pick(VENDORS)),
                    };
                    let action = match rng.below(3) {
                        0 => format!("{} will send the {}", person.first, rng.pick(DOCS)),
                        1 => format!("I will draft the {}", rng.pick(DOCS)),
                        _ => format!("schedule a follow-up with {other}"),
                    };
                    format!(
                        "{} with {} ({}) about {name} ({what}): {decision}. Next step: {action}.",
                        rng.pick(FORMS),
                        person.full,
                        person.role
                    )
                };
                out.push(Draft {
                    day: meeting_day,
                    kind: Kind::Meeting,
                    person: Some(index),
                    project: Some(project),
                    text,
                    source: format!("Meetings/{meeting_day} {}.md", person.full),
                    entities: vec![(person.full.to_owned(), "person"), (name.to_owned(), "thing")],
                    topics: vec!["meeting".into(), name.to_lowercase()],
                    importance: rng.between(0.4, 0.7),
                    vietnamese: person.vietnamese,
                });
            }
            day = day.add_days(person.cadence + rng.below(3) as i64 - 1);
        }
    }
}

fn project_updates(rng: &mut Rng, first: CalendarDate, last: CalendarDate, out: &mut Vec<Draft>) {
    const STATUS: &[&str] = &[
        "on track for the next milestone",
        "slipping by about a week",
        "blocked on a vendor answer",
        "in code review",
        "waiting for legal sign-off",
    ];
    let mut day = first.add_days(2);
    while day <= last {
        let project = rng.below(PROJECTS.len());
        let (name, what) = PROJECTS[project];
        let status = if rng.chance(0.2) {
            format!("shipped to {}% of users", 5 * (1 + rng.below(20)))
        } else {
            (*rng.pick(STATUS)).to_owned()
        };
        out.push(Draft {
            day,
            kind: Kind::Update,
            person: None,
            project: Some(project),
            text: format!("{name} status update ({what}): {status}; {} open issues.", rng.below(60)),
            source: format!("Projects/{name}.md"),
            entities: vec![(name.to_owned(), "thing")],
            topics: vec!["project update".into(), name.to_lowercase()],
            importance: rng.between(0.3, 0.5),
            vietnamese: false,
        });
        day = day.add_days(2 + rng.below(4) as i64);
    }
}

/// Recurring personal appointments, for "when did I last …" questions.
const APPOINTMENTS: &[(&str, &str, &str, i64)] = &[
    ("Dentist appointment with Dr. Lam at Smile Clinic", "Dr. Lam", "dentist", 120),
    ("Haircut at Studio Nine", "Studio Nine", "haircut", 42),
    ("Car service at AutoFix garage", "AutoFix", "car", 150),
];

fn appointments(rng: &mut Rng, first: CalendarDate, last: CalendarDate, out: &mut Vec<Draft>) {
    const NOTES: &[&str] =
        &["all fine", "booked a follow-up", "paid by card", "took longer than planned", "cost more than last time"];
    for (index, (what, who, topic, cadence)) in APPOINTMENTS.iter().enumerate() {
        let mut day = first.add_days(rng.below(*cadence as usize) as i64);
        while day <= last {
            out.push(Draft {
                day,
                kind: Kind::Appointment(index),
                person: None,
                project: None,
                text: format!("{what}: {}.", rng.pick(NOTES)),
                source: "Personal/Appointments.md".into(),
                entities: vec![((*who).to_owned(), "organisation")],
                topics: vec![(*topic).to_owned()],
                importance: rng.between(0.3, 0.5),
                vietnamese: false,
            });
            day = day.add_days(cadence - 10 + rng.below(21) as i64);
        }
    }
}

/// One-off facts, each with its question worded differently from the note.
fn facts(rng: &mut Rng) -> Vec<Fact> {
    let mut facts = Vec::new();
    let mut add = |text: String,
                   (question, paraphrase): (String, String),
                   topic,
                   source: &str,
                   person: Option<usize>,
                   vietnamese| {
        facts.push(Fact { text, question, paraphrase, topic, source: source.to_owned(), person, vietnamese });
    };
    const WORDS: &[&str] =
        &["maple", "otter", "copper", "lantern", "harbor", "meadow", "falcon", "pepper", "violet", "granite"];
    for place in ["cabin", "parents' house", "office", "studio", "beach house", "co-working space", "boat"] {
        let password = format!("{}-{}-{}", rng.pick(WORDS), rng.pick(WORDS), 10 + rng.below(90));
        add(
            format!("The wifi password at the {place} is {password}."),
            (format!("What is the wifi password for the {place}?"), format!("How do I get online at the {place}?")),
            "wifi",
            "Notes/Passwords.md",
            None,
            false,
        );
    }
    const CHILDREN: &[&str] = &["Mai", "Sophie", "Leo", "Nora", "Kai", "Lena", "Oscar", "Ava", "Theo", "Iris"];
    const DRINKS: &[&str] = &["flat white", "oat latte", "green tea", "double espresso", "iced americano", "chai"];
    const CAFES: &[&str] = &["Blue Door Cafe", "the corner bakery", "Roastery 7", "Cafe Giang"];
    const STREETS: &[&str] = &["Oak", "Harbour", "Linden", "Mill", "Orchard", "Station"];
    const CITIES: &[&str] = &["Lisbon", "Hanoi", "Rotterdam", "Melbourne", "Lyon", "Osaka"];
    const GIFTS: &[&str] =
        &["a fountain pen", "a board game", "a bonsai tree", "concert tickets", "a cookbook", "a scarf"];
    for (index, person) in PEOPLE.iter().enumerate().filter(|(_, person)| !person.vietnamese) {
        let child = CHILDREN[index % CHILDREN.len()];
        add(
            format!(
                "{}'s daughter is called {child} and turns {} in {}.",
                person.full,
                3 + rng.below(12),
                rng.pick(&MONTH_NAMES)
            ),
            (
                format!("What is the name of {}'s daughter?", person.first),
                format!("What is {}'s kid's name?", person.first),
            ),
            "family",
            "Notes/People.md",
            Some(index),
            false,
        );
        add(
            format!("{} always orders a {} at {}.", person.full, rng.pick(DRINKS), rng.pick(CAFES)),
            (
                format!("What does {} like to drink?", person.first),
                format!("What should I get {} at the coffee shop?", person.first),
            ),
            "coffee",
            "Notes/People.md",
            Some(index),
            false,
        );
        add(
            format!(
                "{} moved to {} {} Street in {}.",
                person.full,
                1 + rng.below(200),
                rng.pick(STREETS),
                rng.pick(CITIES)
            ),
            (format!("Where does {} live now?", person.first), format!("What is {}'s home address?", person.first)),
            "address",
            "Notes/People.md",
            Some(index),
            false,
        );
        add(
            format!("Gave {} {} for their birthday.", person.full, rng.pick(GIFTS)),
            (
                format!("What birthday present did I give {}?", person.first),
                format!("What did I get {} when they turned a year older?", person.first),
            ),
            "gifts",
            "Notes/Gifts.md",
            Some(index),
            false,
        );
    }
    for document in ["passport", "car insurance", "health insurance card", "driving licence", "library card"] {
        let code = format!("{}{}", (b'A' + rng.below(26) as u8) as char, 1_000_000 + rng.below(8_999_999));
        let expiry = format!("{} {}", rng.pick(&MONTH_NAMES), 2027 + rng.below(6));
        add(
            format!("My {document} number is {code}; it expires in {expiry}."),
            (format!("When does my {document} expire?"), format!("Until when is my {document} valid?")),
            "documents",
            "Personal/Documents.md",
            None,
            false,
        );
    }
    const BOOKS: &[(&str, &str, &str)] = &[
        ("Deep Work", "Cal Newport", "long blocks of undistracted focus beat busy multitasking"),
        ("Thinking, Fast and Slow", "Daniel Kahneman", "two systems of thought, one quick and one deliberate"),
        ("The Mom Test", "Rob Fitzpatrick", "ask customers about their past behaviour, not your idea"),
        ("Atomic Habits", "James Clear", "tiny changes compound into remarkable results"),
        ("Shape Up", "Ryan Singer", "fixed time, variable scope, six-week cycles"),
        ("The Design of Everyday Things", "Don Norman", "good design makes the right action obvious"),
        ("Range", "David Epstein", "generalists thrive in wicked learning environments"),
        ("Four Thousand Weeks", "Oliver Burkeman", "accept finitude and choose what to neglect"),
    ];
    for (title, author, idea) in BOOKS {
        add(
            format!("Finished reading '{title}' by {author}: the key idea is that {idea}."),
            (
                format!("What was the main idea of the book by {author}?"),
                format!("What did {author} argue in the book I read?"),
            ),
            "books",
            &format!("Books/{title}.md"),
            None,
            false,
        );
    }
    const DISHES: &[&str] = &["banana bread", "lasagne", "focaccia", "apple crumble", "shepherd's pie", "granola"];
    for dish in DISHES {
        add(
            format!(
                "Recipe for {dish}: bake for {} minutes at {} degrees.",
                20 + 5 * rng.below(9),
                160 + 10 * rng.below(7)
            ),
            (format!("How long do I bake the {dish}?"), format!("How long does the {dish} stay in the oven?")),
            "recipes",
            &format!("Recipes/{dish}.md"),
            None,
            false,
        );
    }
    for thing in ["gym locker", "bike lock", "garage door"] {
        add(
            format!("The {thing} code is {}.", 1000 + rng.below(9000)),
            (format!("What's the code of the {thing}?"), format!("What number opens the {thing}?")),
            "codes",
            "Personal/Codes.md",
            None,
            false,
        );
    }
    for place in ["nhà bà ngoại", "quán cà phê quen", "văn phòng mới"] {
        add(
            format!("Mật khẩu wifi ở {place} là {}{}.", rng.pick(WORDS), 100 + rng.below(900)),
            (format!("Mật khẩu wifi ở {place} là gì?"), format!("Làm sao để vào mạng ở {place}?")),
            "wifi",
            "Ghi chú/Mật khẩu.md",
            None,
            true,
        );
    }
    const DRINKS_VN: &[&str] = &["cà phê sữa đá", "trà sen", "nước mía"];
    for (index, person) in PEOPLE.iter().enumerate().filter(|(_, person)| person.vietnamese) {
        add(
            format!("{} thích uống {} ở quán đầu ngõ.", person.full, rng.pick(DRINKS_VN)),
            (format!("{} thích uống gì?", person.first), format!("Nên mời {} món gì ở quán?", person.first)),
            "coffee",
            "Ghi chú/Mọi người.md",
            Some(index),
            true,
        );
    }
    facts
}

/// Builds the questions from the generated memories.
struct Questions<'a> {
    rng: &'a mut Rng,
    memories: &'a [Generated],
    first: CalendarDate,
    last: CalendarDate,
    out: Vec<Value>,
}

impl Questions<'_> {
    fn push(&mut self, question: String, asked_at: String, evidence: Vec<String>, category: &str) {
        // The same question asked the same day twice would count twice.
        let asked_day = asked_at.get(..10).unwrap_or_default();
        let repeated = self.out.iter().any(|known| {
            known["question"] == question.as_str()
                && known["asked_at"].as_str().and_then(|at| at.get(..10)) == Some(asked_day)
        });
        if evidence.is_empty() || repeated {
            return;
        }
        let id = format!("q{:04}", self.out.len() + 1);
        self.out.push(
            json!({ "id": id, "question": question, "asked_at": asked_at, "evidence": evidence, "category": category }),
        );
    }

    fn ids(&self, keep: impl Fn(&Generated) -> bool) -> Vec<String> {
        self.memories.iter().filter(|memory| keep(memory)).map(id_of).collect()
    }

    /// A day with notes, at least `margin` days after the first.
    fn some_day(&mut self, margin: i64) -> CalendarDate {
        let span = (self.last.to_days() - self.first.to_days() - margin).max(1) as usize;
        self.first.add_days(margin + self.rng.below(span) as i64)
    }

    /// Asked in the morning of `day`, in Hanoi or in UTC (the date part is the local date).
    fn asked(&mut self, day: CalendarDate) -> String {
        if self.rng.chance(0.5) {
            format!("{day}T08:30:00+07:00")
        } else {
            format!("{day}T18:15:00Z")
        }
    }

    fn dates(&mut self) {
        let end = self.last.add_days(1);
        for round in 0..40 {
            let day = self.some_day(0);
            let evidence = self.ids(|memory| memory.day == day);
            let asked = self.asked(end);
            let text = match round % 4 {
                0 => format!("What did I do on {}/{}/{}?", day.day, day.month, day.year),
                1 => format!("What happened on {} {}, {}?", MONTH_NAMES[day.month as usize - 1], day.day, day.year),
                2 => format!("Ngày {}/{}/{} tôi đã làm gì?", day.day, day.month, day.year),
                _ => format!("What did I note on {}?", day),
            };
            self.push(text, asked, evidence, "date");
        }
        for round in 0..20 {
            let day = self.some_day(0);
            let evidence = self.ids(|memory| memory.day == day);
            let asked = self.asked(day.add_days(1));
            let text = if round % 2 == 0 { "What did I work on yesterday?" } else { "Hôm qua tôi đã làm gì?" };
            self.push(text.into(), asked, evidence, "date");
        }
        for round in 0..16 {
            let today = self.some_day(14);
            let monday = today.add_days(-i64::from(today.weekday()) - 7);
            let sunday = monday.add_days(6);
            let evidence = self.ids(|memory| memory.day >= monday && memory.day <= sunday);
            let asked = self.asked(today);
            let text =
                if round % 2 == 0 { "What happened last week?" } else { "Tuần trước tôi đã làm những gì?" };
            self.push(text.into(), asked, evidence, "date");
        }
        for round in 0..16 {
            let today = self.some_day(14);
            let back = 1 + self.rng.below(6) as i64;
            let day = today.add_days(-back);
            let evidence = self.ids(|memory| memory.day == day);
            let asked = self.asked(today);
            let text = match round % 4 {
                0 => format!("What did I do on {}?", WEEKDAYS[day.weekday() as usize]),
                1 => format!("What did I do {back} days ago?"),
                2 => format!(
                    "{} tôi đã làm gì?",
                    ["Thứ Hai", "Thứ Ba", "Thứ Tư", "Thứ Năm", "Thứ Sáu", "Thứ Bảy", "Chủ nhật"]
                        [day.weekday() as usize]
                ),
                _ => format!("{back} ngày trước tôi làm gì?"),
            };
            self.push(text, asked, evidence, "date");
        }
    }

    fn people(&mut self) {
        let end = self.last.add_days(1);
        for round in 0..60 {
            let person = self.rng.below(PEOPLE.len());
            let day = self.some_day(0);
            let (year, month) = (day.year, day.month);
            // Meetings, lunches and emails: everything that was said with them that month.
            let evidence = self.ids(|memory| {
                memory.person == Some(person)
                    && memory.kind != Kind::Fact
                    && memory.day.year == year
                    && memory.day.month == month
            });
            let asked = self.asked(end);
            let first = PEOPLE[person].first;
            let text = if round % 3 == 2 {
                format!("Tôi đã bàn gì với {first} trong tháng {month}/{year}?")
            } else {
                format!("What did I discuss with {first} in {} {year}?", MONTH_NAMES[month as usize - 1])
            };
            self.push(text, asked, evidence, "person");
        }
        let mut tries = 0;
        let mut made = 0;
        while made < 30 && tries < 500 {
            tries += 1;
            let person = self.rng.below(PEOPLE.len());
            let project = PEOPLE[person].projects[self.rng.below(2)];
            let year = self.last.year - self.rng.below(2) as i32;
            let evidence = self.ids(|memory| {
                memory.kind == Kind::Meeting
                    && memory.person == Some(person)
                    && memory.project == Some(project)
                    && memory.day.year == year
            });
            if evidence.is_empty() || evidence.len() > 10 {
                continue;
            }
            made += 1;
            let asked = self.asked(end);
            let text =
                format!("What did {} and I decide about {} in {year}?", PEOPLE[person].full, PROJECTS[project].0);
            self.push(text, asked, evidence, "person");
        }
    }

    fn latest(&mut self) {
        for round in 0..50 {
            let person = self.rng.below(PEOPLE.len());
            let today = self.some_day(120);
            let met = |memory: &Generated| matches!(memory.kind, Kind::Meeting | Kind::Lunch);
            let newest = self.newest(|memory| met(memory) && memory.person == Some(person), today);
            let asked = self.asked(today);
            let first = PEOPLE[person].first;
            let text = if round % 3 == 2 {
                format!("Lần cuối tôi gặp {first} là khi nào?")
            } else {
                format!("When did I last meet {first}?")
            };
            self.push(text, asked, newest, "latest");
        }
        for _ in 0..20 {
            let project = self.rng.below(PROJECTS.len());
            let today = self.some_day(60);
            let newest = self.newest(|memory| memory.kind == Kind::Update && memory.project == Some(project), today);
            let asked = self.asked(today);
            self.push(
                format!("What was the latest status update on {}?", PROJECTS[project].0),
                asked,
                newest,
                "latest",
            );
        }
        for round in 0..15 {
            let which = round % APPOINTMENTS.len();
            let today = self.some_day(200);
            let newest = self.newest(|memory| memory.kind == Kind::Appointment(which), today);
            let asked = self.asked(today);
            let text = [
                "When was my most recent dentist appointment?",
                "When did I last get a haircut?",
                "When was the car last serviced?",
            ][which];
            self.push(text.into(), asked, newest, "latest");
        }
    }

    /// The id of the newest memory matching `keep` on or before `today`, if any.
    fn newest(&self, keep: impl Fn(&Generated) -> bool, today: CalendarDate) -> Vec<String> {
        self.memories
            .iter()
            .filter(|memory| keep(memory) && memory.day <= today)
            .max_by_key(|memory| memory.day)
            .map(id_of)
            .into_iter()
            .collect()
    }

    fn facts(&mut self, facts: &[(String, String, String)]) {
        let end = self.last.add_days(1);
        for (question, paraphrase, id) in facts {
            let asked = self.asked(end);
            self.push(question.clone(), asked, vec![id.clone()], "fact");
            let asked = self.asked(end);
            self.push(paraphrase.clone(), asked, vec![id.clone()], "paraphrase");
        }
    }
}

fn id_of(memory: &Generated) -> String {
    memory.record["id"].as_str().unwrap_or_default().to_owned()
}
