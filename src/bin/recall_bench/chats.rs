//! A synthetic set of long conversations, the shape of the public multi-session dialogue
//! benchmarks: pairs of friends talking over months, one memory per turn (listing the
//! speaker and anyone named), hundreds of turns per person, and questions whose evidence is
//! one turn among them. It reproduces the failure patterns seen there, as regressions:
//!
//! - `single`: a frequent name and a rare word ("When did Maria go to the beach?");
//! - `word-forms`: the turn says "volunteered", the question "volunteering";
//! - `nickname`: "Mel" for Melanie, "Jon" for John;
//! - `neighbour`: the partner's turn asks, in the question's words; the answer turn after it
//!   shares none ("What martial arts has Caroline done?" → "Karate for three years.");
//! - `two-people`: "Which city have both Jean and John visited?";
//! - `inference`: no shared word at all ("Would Tom be considered outdoorsy?"), bridged by the
//!   kinds table (`select/kinds.rs`: outdoorsy → hiking, camping) or a query-planning call.
//!
//! Written by the same hands as the selector: a regression set, not a measure of real data
//! (for that, see the tldr-pages set in `tests/fixtures/recall-tldr`).

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use memory_agent::calendar::CalendarDate;
use serde_json::{json, Value};

use super::generate::Rng;

/// (speaker, the short form the questions use, partner).
const PAIRS: &[(&str, &str, &str, &str)] = &[
    ("Melanie", "Mel", "Caroline", "Caro"),
    ("John", "Jon", "Jean", "Jean"),
    ("Maria", "Maria", "Tom", "Tom"),
    ("Nate", "Nate", "Joanna", "Jo"),
];

const SESSIONS: usize = 30;
const TURNS_PER_SESSION: usize = 40;

/// What one person did, said in a turn (with the partner's turn before it when `asked`), and
/// the question about it. `{p}` is the person's name as the question writes it.
struct Fact {
    asked: Option<&'static str>,
    said: &'static str,
    question: &'static str,
    category: &'static str,
}

const FACTS: &[Fact] = &[
    Fact {
        asked: None,
        said: "We finally went to the beach last weekend, the waves were huge.",
        question: "When did {p} go to the beach?",
        category: "single",
    },
    Fact {
        asked: None,
        said: "I volunteered at the animal shelter on Saturday morning.",
        question: "What volunteering has {p} done?",
        category: "word-forms",
    },
    Fact {
        asked: None,
        said: "I've been painting sunsets lately, it calms me down.",
        question: "What does {p} like to paint?",
        category: "word-forms",
    },
    Fact {
        asked: None,
        said: "We got married in a small chapel by the lake.",
        question: "Where was {p}'s marriage?",
        category: "word-forms",
    },
    Fact {
        asked: Some("{n}, have you tried any martial arts?"),
        said: "Yes! Karate for three years, and a bit of judo.",
        question: "What martial arts has {p} done?",
        category: "neighbour",
    },
    Fact {
        asked: Some("{n}, what did you think of the jazz concert?"),
        said: "Honestly the best night of the year, the drummer was incredible.",
        question: "What did {p} think of the jazz concert?",
        category: "neighbour",
    },
    Fact {
        asked: None,
        said: "I baked a lemon cake for the neighbourhood party.",
        question: "What did {p} bake for the party?",
        category: "nickname",
    },
    Fact {
        asked: None,
        said: "I started at the bike workshop downtown last month.",
        question: "Where does {p} work now?",
        category: "nickname",
    },
    Fact {
        asked: None,
        said: "Went hiking up the ridge again and camped under the stars.",
        question: "Would {p} be considered outdoorsy?",
        category: "inference",
    },
];

/// Turns that say little, with the words everyday talk shares with questions.
const FILLER: &[&str] = &[
    "That sounds {adj}! How is {thing} going?",
    "I had a {adj} week, mostly {activity}.",
    "Did you see the {event} on TV last night?",
    "Haha, that's so true.",
    "My {relative} says hi, by the way.",
    "I'm thinking about {activity} this weekend.",
    "Work has been {adj} lately, too many meetings.",
    "The kids kept me busy all day with {activity}.",
    "We should meet up in the city soon.",
    "Thanks for asking, {thing} is finally sorted.",
    "I can't believe how fast this year is going.",
    "Let me know how {thing} turns out!",
];
const ADJECTIVES: &[&str] = &["great", "busy", "quiet", "strange", "lovely", "exhausting", "fun", "calm"];
const THINGS: &[&str] = &["the new job", "the garden", "the renovation", "your course", "the move", "the project"];
const ACTIVITIES: &[&str] = &["cleaning", "reading", "cooking", "errands", "gardening", "watching films", "shopping"];
const EVENTS: &[&str] = &["match", "documentary", "election debate", "cooking show", "awards"];
const RELATIVES: &[&str] = &["mum", "brother", "sister", "dad", "cousin", "grandma"];

/// The two people's shared city, said by each in their own way.
const CITY_TURNS: (&str, &str) =
    ("{n}, have you ever been to Lisbon? I visited it in spring.", "Yes, when I was in Lisbon I ate so many pastries.");

/// Writes `memories.jsonl` and `questions.jsonl` into `dir`; returns how many of each.
pub fn write(dir: &str, seed: u64) -> Result<(usize, usize), String> {
    let (memories, questions) = generate(seed);
    let dir = Path::new(dir);
    fs::create_dir_all(dir).map_err(|error| format!("{}: {error}", dir.display()))?;
    let lines = |values: &[Value]| {
        let mut text = String::new();
        values.iter().for_each(|value| {
            let _ = writeln!(text, "{value}");
        });
        text
    };
    for (name, values) in [("memories.jsonl", &memories), ("questions.jsonl", &questions)] {
        let path = dir.join(name);
        fs::write(&path, lines(values)).map_err(|error| format!("{}: {error}", path.display()))?;
    }
    Ok((memories.len(), questions.len()))
}

fn fill(template: &str, rng: &mut Rng) -> String {
    let mut text = template.to_owned();
    for (key, words) in [
        ("{adj}", ADJECTIVES),
        ("{thing}", THINGS),
        ("{activity}", ACTIVITIES),
        ("{event}", EVENTS),
        ("{relative}", RELATIVES),
    ] {
        while text.contains(key) {
            let word = *rng.pick(words);
            text = text.replacen(key, word, 1);
        }
    }
    text
}

/// A turn planted in a session: who says it, the text, and the question it answers.
struct Planted {
    session: usize,
    turn: usize,
    by_first: bool,
    text: String,
    evidence_of: Option<usize>,
}

/// A session and turn (of parity `odd`) with no planted turn at it or just before it.
fn free_slot(rng: &mut Rng, planted: &[Planted], odd: usize) -> (usize, usize) {
    loop {
        let session = rng.below(SESSIONS);
        let turn = 2 + 2 * rng.below(TURNS_PER_SESSION / 2 - 2) + odd;
        let taken = planted.iter().any(|plant| plant.session == session && plant.turn.abs_diff(turn) <= 2);
        if !taken {
            return (session, turn);
        }
    }
}

fn generate(seed: u64) -> (Vec<Value>, Vec<Value>) {
    let mut rng = Rng(seed ^ 0xc4a7);
    let start = CalendarDate::parse("2025-01-06").expect("a valid date");
    let mut memories: Vec<Value> = Vec::new();
    let mut questions: Vec<Value> = Vec::new();
    let mut last_day = start;
    for (pair_at, &(first, first_short, second, second_short)) in PAIRS.iter().enumerate() {
        let source = format!("Chats/{first} and {second}.md");
        // (question, evidence turn ids, category), filled as the turns are written.
        let mut asks: Vec<(String, Vec<String>, &str)> = Vec::new();
        let mut planted: Vec<Planted> = Vec::new();
        for fact in FACTS {
            for (person_first, short) in [(true, first_short), (false, second_short)] {
                let name = if person_first { first } else { second };
                let shown = if fact.category == "nickname" { short } else { name };
                // Even turns are the first person's, odd the second's; the answer is theirs.
                let (session, turn) = free_slot(&mut rng, &planted, usize::from(!person_first));
                asks.push((fact.question.replace("{p}", shown), Vec::new(), fact.category));
                let question = asks.len() - 1;
                if let Some(asked) = fact.asked {
                    let text = asked.replace("{n}", name);
                    planted.push(Planted { session, turn: turn - 1, by_first: !person_first, text, evidence_of: None });
                }
                planted.push(Planted {
                    session,
                    turn,
                    by_first: person_first,
                    text: fact.said.to_owned(),
                    evidence_of: Some(question),
                });
            }
        }
        // The city both have been to: the first asks the second, who answers.
        let (session, turn) = free_slot(&mut rng, &planted, 1);
        asks.push((format!("Which city have both {first} and {second} visited?"), Vec::new(), "two-people"));
        let question = asks.len() - 1;
        planted.push(Planted {
            session,
            turn: turn - 1,
            by_first: true,
            text: CITY_TURNS.0.replace("{n}", second),
            evidence_of: Some(question),
        });
        planted.push(Planted {
            session,
            turn,
            by_first: false,
            text: CITY_TURNS.1.to_owned(),
            evidence_of: Some(question),
        });

        for session in 0..SESSIONS {
            let day = start.add_days((pair_at * 3 + session * 11) as i64);
            last_day = last_day.max(day);
            for turn in 0..TURNS_PER_SESSION {
                let id = format!("c{}-s{:02}-t{:02}", pair_at + 1, session + 1, turn + 1);
                let here: Vec<&Planted> =
                    planted.iter().filter(|plant| plant.session == session && plant.turn == turn).collect();
                let (text, by_first) = match here.first() {
                    Some(plant) => (plant.text.clone(), plant.by_first),
                    None => {
                        let template = *rng.pick(FILLER);
                        (fill(template, &mut rng), turn % 2 == 0)
                    }
                };
                for plant in &here {
                    if let Some(question) = plant.evidence_of {
                        asks[question].1.push(id.clone());
                    }
                }
                let speaker = if by_first { first } else { second };
                let mut entities = vec![json!({ "name": speaker, "kind": "person" })];
                for other in [first, second] {
                    if other != speaker && text.contains(other) {
                        entities.push(json!({ "name": other, "kind": "person" }));
                    }
                }
                memories.push(
                    json!({ "id": id, "text": text, "date": day.to_string(), "source": source, "entities": entities }),
                );
            }
        }
        for (question, evidence, category) in asks {
            if evidence.is_empty() {
                continue;
            }
            questions.push(json!({ "question": question, "evidence": evidence, "category": category }));
        }
    }
    let asked_at = format!("{}T10:00:00Z", last_day.add_days(7));
    for (at, question) in questions.iter_mut().enumerate() {
        question["id"] = json!(format!("c{:03}", at + 1));
        question["asked_at"] = json!(asked_at);
    }
    (memories, questions)
}
