//! The query plan, table-driven: dates in both orders, relative dates, names and keywords,
//! in English and Vietnamese, with and without diacritics. Today is Thursday 12 March 2026.

use memory_agent::calendar::CalendarDate;
use memory_agent::select::{plan_query, DateOrder, KnownNames, QueryPlan};

const TODAY: &str = "2026-03-12";

fn today() -> CalendarDate {
    CalendarDate::parse(TODAY).unwrap()
}

fn plan(question: &str, order: DateOrder, known: &[&str]) -> QueryPlan {
    let known: Vec<String> = known.iter().map(|name| (*name).to_owned()).collect();
    plan_query(question, today(), order, &KnownNames::new(&known))
}

fn range(text: &str) -> Option<(String, String)> {
    if text.is_empty() {
        return None;
    }
    let (from, to) = text.split_once("..").unwrap_or((text, text));
    Some((from.to_owned(), to.to_owned()))
}

fn dates_of(plan: &QueryPlan) -> Option<(String, String)> {
    plan.dates.map(|(from, to)| (from.to_string(), to.to_string()))
}

#[test]
fn today_is_a_thursday() {
    assert_eq!(today().weekday(), 3);
}

/// (question, expected days as `FROM..TO`, `DAY` or "" for none)
const DATES_DAY_MONTH: &[(&str, &str)] = &[
    ("What did I do on 1/2/2026?", "2026-02-01"),
    ("What happened on 2026-02-01?", "2026-02-01"),
    ("Notes from 1.2.2026", "2026-02-01"),
    ("anything on 1/2/26", "2026-02-01"),
    ("What did I do on 1 Feb 2026?", "2026-02-01"),
    ("What did I do on the 1st of February 2026?", "2026-02-01"),
    ("What happened on February 1?", "2026-02-01"),
    ("What happened on Feb 1st, 2026?", "2026-02-01"),
    ("What happened in Feb 2026?", "2026-02-01..2026-02-28"),
    ("What happened in February 2024?", "2024-02-01..2024-02-29"),
    ("What did I do in 2025?", "2025-01-01..2025-12-31"),
    ("What did I do yesterday?", "2026-03-11"),
    ("What did I do today?", "2026-03-12"),
    ("and the day before yesterday?", "2026-03-10"),
    ("What happened last week?", "2026-03-02..2026-03-08"),
    ("What happened the previous week?", "2026-03-02..2026-03-08"),
    ("What happened this week?", "2026-03-09..2026-03-15"),
    ("What happened the week before last?", "2026-02-23..2026-03-01"),
    ("What happened last month?", "2026-02-01..2026-02-28"),
    ("What happened this month?", "2026-03-01..2026-03-31"),
    ("What happened last year?", "2025-01-01..2025-12-31"),
    ("What did I do in March?", "2026-03-01..2026-03-31"),
    ("What did I do in April?", "2025-04-01..2025-04-30"),
    ("What did I do last March?", "2025-03-01..2025-03-31"),
    ("What did I do in May?", "2025-05-01..2025-05-31"),
    ("What happened two months ago?", "2026-01-01..2026-01-31"),
    ("What happened 3 days ago?", "2026-03-09"),
    ("What happened a week ago?", "2026-03-02..2026-03-08"),
    ("What happened a couple of days ago?", "2026-03-10"),
    ("What happened a year ago?", "2025-01-01..2025-12-31"),
    ("What did I do in the past 3 days?", "2026-03-09..2026-03-12"),
    ("What did I do on Tuesday?", "2026-03-10"),
    ("What did I do on Thursday?", "2026-03-05"),
    ("What did I do last Friday?", "2026-03-06"),
    ("What did I do on Tuesday last week?", "2026-03-03"),
    ("What did I do this Monday?", "2026-03-09"),
    ("What did I do last weekend?", "2026-03-07..2026-03-08"),
    ("What did I do since January?", "2026-01-01..2026-03-12"),
    ("What did Maria do last weekend before April 10, 2023?", "2023-04-08..2023-04-10"),
    ("What did John do the week before 3 August 2025?", "2025-07-27..2025-08-03"),
    ("What puppy did she get two weeks before 11 August 2025?", "2025-07-28..2025-08-11"),
    ("What was shown on the Sunday before October 25, 2025?", "2025-10-19..2025-10-25"),
    ("What did I do the day after 1/2/2026?", "2026-02-01..2026-02-02"),
    ("What did I do the weekend after 1/2/2026?", "2026-02-01..2026-02-08"),
    ("What did I do a month before 2026-03-01?", "2026-01-30..2026-03-01"),
    ("Between 1/2/2026 and 5/2/2026?", "2026-02-01..2026-02-05"),
    ("May I see my notes about the garden?", ""),
    ("The budget is 3.5 million", ""),
    ("What did Alice say about the budget?", ""),
];

#[test]
fn dates_in_english_day_month() {
    for (question, expected) in DATES_DAY_MONTH {
        let planned = plan(question, DateOrder::DayMonth, &[]);
        assert_eq!(dates_of(&planned), range(expected), "{question}");
    }
}

#[test]
fn numeric_dates_follow_the_date_order_and_iso_never_does() {
    let cases: &[(&str, &str)] = &[
        ("What did I do on 1/2/2026?", "2026-01-02"),
        ("What did I do on 2/13/2026?", "2026-02-13"),
        ("What happened on 2026-02-01?", "2026-02-01"),
        ("What happened in Feb 2026?", "2026-02-01..2026-02-28"),
        ("What about 3/1?", "2026-03-01"),
    ];
    for (question, expected) in cases {
        let planned = plan(question, DateOrder::MonthDay, &[]);
        assert_eq!(dates_of(&planned), range(expected), "{question}");
    }
    // An impossible reading falls back to the other order.
    assert_eq!(dates_of(&plan("on 13/2/2026", DateOrder::MonthDay, &[])), range("2026-02-13"));
}

const DATES_VIETNAMESE: &[(&str, &str)] = &[
    ("Ngày 1/2/2026 tôi đã làm gì?", "2026-02-01"),
    ("ngay 1/2/2026 toi da lam gi", "2026-02-01"),
    ("Ngày 1 tháng 2 năm 2026 có gì?", "2026-02-01"),
    ("ngay 1 thang 2 nam 2026 co gi", "2026-02-01"),
    ("Hôm qua tôi gặp ai?", "2026-03-11"),
    ("hom qua toi gap ai", "2026-03-11"),
    ("Hôm nay có gì?", "2026-03-12"),
    ("Hôm kia tôi làm gì?", "2026-03-10"),
    ("Tuần trước tôi làm gì?", "2026-03-02..2026-03-08"),
    ("tuan truoc toi lam gi", "2026-03-02..2026-03-08"),
    ("Tuần này có gì mới?", "2026-03-09..2026-03-15"),
    ("Tuần trước nữa thì sao?", "2026-02-23..2026-03-01"),
    ("Tháng trước tôi chi bao nhiêu?", "2026-02-01..2026-02-28"),
    ("thang truoc", "2026-02-01..2026-02-28"),
    ("Tháng này", "2026-03-01..2026-03-31"),
    ("Tháng 3 tôi làm gì?", "2026-03-01..2026-03-31"),
    ("Tháng 4 tôi làm gì?", "2025-04-01..2025-04-30"),
    ("tháng 2 năm 2025", "2025-02-01..2025-02-28"),
    ("tháng 3/2025", "2025-03-01..2025-03-31"),
    ("tháng 12 năm ngoái", "2025-12-01..2025-12-31"),
    ("Năm 2025 tôi đi đâu?", "2025-01-01..2025-12-31"),
    ("Năm ngoái", "2025-01-01..2025-12-31"),
    ("năm nay", "2026-01-01..2026-12-31"),
    ("2 tháng trước", "2026-01-01..2026-01-31"),
    ("hai tháng trước", "2026-01-01..2026-01-31"),
    ("3 ngày trước tôi làm gì?", "2026-03-09"),
    ("năm ngày trước", "2026-03-07"),
    ("cách đây 2 tuần", "2026-02-23..2026-03-01"),
    ("Thứ Ba tôi làm gì?", "2026-03-10"),
    ("thu ba toi lam gi", "2026-03-10"),
    ("thứ 3 tuần trước", "2026-03-03"),
    ("Thứ Năm", "2026-03-05"),
    ("thứ năm tuần này", "2026-03-12"),
    ("Chủ nhật tôi đi đâu?", "2026-03-08"),
    ("chu nhat", "2026-03-08"),
    ("Tôi đã làm gì với ngân sách?", ""),
];

#[test]
fn dates_in_vietnamese_with_and_without_diacritics() {
    for (question, expected) in DATES_VIETNAMESE {
        let planned = plan(question, DateOrder::DayMonth, &[]);
        assert_eq!(dates_of(&planned), range(expected), "{question}");
    }
}

/// (question, known names, expected names, expected keywords, wants latest)
type NameCase = (&'static str, &'static [&'static str], &'static [&'static str], &'static [&'static str], bool);

const NAMES_AND_KEYWORDS: &[NameCase] = &[
    (
        "What did Alice's team decide about the Q3 budget?",
        &["Alice", "Bob", "Alice Nguyen"],
        &["Alice", "Alice Nguyen"],
        &["team", "decide", "q3", "budget"],
        false,
    ),
    ("what did alice nguyen say", &["Alice Nguyen", "Nguyen Van B"], &["Alice Nguyen"], &[], false),
    ("When did I last meet Dan?", &["Dan Pham"], &["Dan Pham"], &["meet"], true),
    ("What's the latest on Project Apollo?", &["Project Apollo"], &["Project Apollo"], &[], true),
    ("most recent dentist appointment", &[], &[], &["dentist", "appointment"], true),
    ("What was discussed in the last meeting with Bob?", &["Bob"], &["Bob"], &["discussed", "meeting"], true),
    ("What did I discuss with June?", &["June"], &["June"], &["discuss"], false),
    ("What did I do in June?", &["June"], &[], &[], false),
    ("Lần cuối tôi gặp Linh là khi nào?", &["Đặng Thùy Linh"], &["Đặng Thùy Linh"], &["gặp"], true),
    ("lan cuoi toi gap Linh la khi nao", &["Đặng Thùy Linh"], &["Đặng Thùy Linh"], &["gap"], true),
    ("Cuộc họp gần đây nhất với Minh về ngân sách?", &["Minh"], &["Minh"], &["cuộc", "họp", "ngân", "sách"], true),
    ("Lần cuối tôi gặp Minh là khi nào?", &["Bùi Quang Minh"], &["Bùi Quang Minh"], &["gặp"], true),
    ("Đức nói gì về dự án mới nhất?", &["Đức"], &["Đức"], &["dự", "án"], true),
    // Without diacritics "an" (án) is also the English article: it goes, "du" stays.
    ("duc noi gi ve du an", &["Đức"], &["Đức"], &["du"], false),
    ("What is the wifi password at the cabin?", &["Alice"], &[], &["wifi", "password", "cabin"], false),
    // Names that are also stop words (commands of a vault of man pages, an app) need a capital.
    ("What did I do last week?", &["do", "last", "in"], &[], &[], false),
    ("Which notes mention Last and Do?", &["do", "last", "which"], &["last", "do"], &["notes", "mention"], false),
    // A word of several names stands for those holding its capitalised neighbour too, then for
    // the word itself with a qualifier in brackets (SQuAD: the United Kingdom and the Victoria
    // and Albert Museum pulled in their memories); otherwise for all of them.
    (
        "Who is the first United Methodist theologian?",
        &["Sky (United Kingdom)", "United Methodist Church"],
        &["United Methodist Church"],
        &["first", "theologian"],
        false,
    ),
    (
        "What did the finding of gold in Victoria cause?",
        &["Victoria and Albert Museum", "Victoria (Australia)"],
        &["Victoria (Australia)"],
        &["finding", "gold", "cause"],
        false,
    ),
    ("What did Minh write?", &["Bùi Quang Minh", "Minh Tran"], &["Bùi Quang Minh", "Minh Tran"], &["write"], false),
];

#[test]
fn a_common_first_name_stands_for_a_few_names_and_a_question_takes_at_most_eight() {
    let many: Vec<String> = (0..300).map(|n| format!("Alice Surname{n}")).collect();
    let known: Vec<&str> = many.iter().map(String::as_str).collect();
    let planned = plan("What did Alice say?", DateOrder::DayMonth, &known);
    assert_eq!(
        planned.entities,
        vec!["Alice Surname0", "Alice Surname1", "Alice Surname2"],
        "the most mentioned three"
    );
    let crowd: Vec<String> = (0..20).map(|n| format!("Person{n}")).collect();
    let known: Vec<&str> = crowd.iter().map(String::as_str).collect();
    let question = crowd.join(" and ");
    assert_eq!(plan(&question, DateOrder::DayMonth, &known).entities.len(), 8);
}

#[test]
fn names_keywords_and_latest() {
    for (question, known, names, keywords, latest) in NAMES_AND_KEYWORDS {
        let planned = plan(question, DateOrder::DayMonth, known);
        assert_eq!(planned.entities, names.to_vec(), "names of {question}");
        assert_eq!(planned.keywords, keywords.to_vec(), "keywords of {question}");
        assert_eq!(planned.wants_latest, *latest, "latest of {question}");
    }
}

#[test]
fn dates_names_and_keywords_together() {
    let planned = plan("What did Alice and I discuss about the budget last week?", DateOrder::DayMonth, &["Alice"]);
    assert_eq!(dates_of(&planned), range("2026-03-02..2026-03-08"));
    assert_eq!(planned.entities, vec!["Alice"]);
    assert_eq!(planned.keywords, vec!["discuss", "budget"]);
    assert!(!planned.wants_latest, "\"last week\" is a date, not a wish for the latest");
}

#[test]
fn odd_input_makes_an_empty_plan_without_panicking() {
    for question in
        ["", "   ", "???", "99/99/9999", "0/0", "31/2/2026", "2026-13-45", "thứ", "last", "ngày", "🧠💡", "a/b/c"]
    {
        let planned = plan(question, DateOrder::DayMonth, &["", " ", "X"]);
        assert!(planned.dates.is_none(), "{question}: {planned:?}");
    }
    let long = "budget ".repeat(10_000);
    assert_eq!(plan(&long, DateOrder::DayMonth, &[]).keywords, vec!["budget"]);
}

#[test]
fn each_date_expression_is_kept_as_written_with_its_days() {
    let written = |question: &str, order: DateOrder| -> Vec<(String, String, String)> {
        plan(question, order, &[])
            .resolved_dates
            .iter()
            .map(|date| (date.written.clone(), date.from.to_string(), date.to.to_string()))
            .collect()
    };
    let owned = |written: &str, from: &str, to: &str| (written.to_owned(), from.to_owned(), to.to_owned());
    assert_eq!(
        written("What happened on 1/2/2026 and last week?", DateOrder::DayMonth),
        vec![owned("1/2/2026", "2026-02-01", "2026-02-01"), owned("last week", "2026-03-02", "2026-03-08")]
    );
    assert_eq!(written("Lunch on 1/2/2026?", DateOrder::MonthDay), vec![owned("1/2/2026", "2026-01-02", "2026-01-02")]);
    assert!(written("What did Alice say?", DateOrder::DayMonth).is_empty());
}

#[test]
fn a_question_asking_where_wants_a_place_unless_it_names_the_place_itself() {
    let wants_place = |question: &str| plan(question, DateOrder::DayMonth, &["Jon", "Tim"]).wants_place;
    for question in [
        "Where did Jon go last summer?",
        "Which cities has Jon visited?",
        "Which US cities does Tim mention?",
        "What European countries has Tim been to?",
        "What state did Tim visit?",
    ] {
        assert!(wants_place(question), "{question}");
    }
    for question in [
        "What shop would Tim enjoy visiting in New York City?",
        "When did Jon start dancing?",
        "What did Tim say about the budget?",
    ] {
        assert!(!wants_place(question), "{question}");
    }
}
