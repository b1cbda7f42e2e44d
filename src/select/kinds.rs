//! The kind of thing a question asks for, and everyday instances of it. "What martial arts has
//! John done?" is answered by "I'm doing kickboxing" and "Off to do some taekwondo!", which share
//! no word with it; nor do "What pets does Nate have?" and "this is Max! [a photo of a dog]". A
//! model would know that kickboxing is a martial art (the query planner, off by default, asks
//! one); without a call, and without embeddings, a short table of everyday kinds knows it too.
//!
//! The table is of a person's life as notes and conversations tell it (sports, exercise, hobbies,
//! pets, food, events, work, family, tastes, health, faith, traits; and what shows a quality or
//! a place: a patriotic person serves in the army, a beach is by the ocean), English only, and
//! small on purpose: WordNet's hyponyms, measured for issue 37, are 17,746 categories and 351,000
//! instances (5.6 MB), mostly noise for this ("activity" → help, care, fun). A plural asks for
//! the kind ("What sports…", "What pets…"); a singular only where it heads the question's "what"
//! ("What sport…", "Which game…", "Nate's favorite game", "What type of meal…"): "the last game
//! the Panthers played" and "during his career" ask for no kind. "activity" never does: "What activity did Tim do after reading…" asks
//! for one event, and lifting every hobby took its answer out.

use crate::stems::{query_terms, Language};
use crate::words::Word;

/// Each line: the words that ask for a kind, then after `|` those that ask only where they head
/// the question's "what" (`heads_what`), a colon, instances of it (one word each, as a memory
/// would write it; the search stems both). One text: a table of `&str` costs 8 bytes a word in
/// the module.
const KINDS: &str = "\
sports athletic sporty | sport: football soccer basketball baseball tennis golf hockey volleyball rugby cricket swimming surfing skiing snowboarding skating cycling running boxing wrestling climbing rowing kayaking badminton softball marathon triathlon
exercises workouts fitness | exercise workout: yoga pilates running jogging swimming cycling weightlifting weights gym crossfit cardio aerobics stretching kickboxing spinning treadmill zumba hiking rowing squats
martial: karate judo taekwondo kickboxing boxing jiujitsu aikido kung wrestling fencing
outdoor outdoors outdoorsy adventurous: hiking camping fishing hunting kayaking canoeing climbing surfing skiing biking cycling gardening picnic mountaineering sailing rafting backpacking trail beach park
hobby hobbies pastimes activities interests: painting drawing reading writing knitting gardening cooking baking photography pottery dancing singing hiking camping fishing gaming chess puzzles sewing woodworking guitar piano swimming running yoga volunteering
pets animals | pet animal: dog puppy pup cat kitten turtle fish hamster rabbit bunny parrot bird horse snake lizard reptile animal
desserts sweets treats | dessert: cake cookie pie brownie cupcake icecream pudding tart muffin cheesecake sundae chocolate pastry donut
instruments | instrument: guitar piano violin drums flute cello saxophone ukulele trumpet clarinet harp
arts crafts artworks artistic | art craft: painting drawing sculpture pottery photography sketching knitting ceramics calligraphy
events | event: party wedding concert festival conference parade workshop fundraiser marathon race meetup rally ceremony graduation birthday seminar tournament competition exhibition fair gala reunion
foods meals dishes | food meal dish: pasta pizza soup salad stew curry tacos sushi burger sandwich chili lasagna risotto steak chicken noodles dumplings casserole omelette pancakes
games | game: chess checkers poker monopoly scrabble cards puzzle puzzles videogames minecraft fortnite
languages | language: english spanish french german italian chinese mandarin japanese korean portuguese russian arabic hindi
jobs careers professions occupations | job career profession occupation: teacher teaching nurse nursing doctor counselor counseling therapist therapy engineer lawyer writer designer chef coach coaching manager accountant artist musician actor photographer developer programmer scientist researcher police firefighter soldier pilot mechanic volunteer politics
relationship relationships: single married marriage divorced engaged dating boyfriend girlfriend partner husband wife spouse fiance breakup
allergic allergy allergies: dairy gluten nuts peanuts pollen lactose shellfish fur dust
symptoms illnesses | symptom illness: fever cough cold flu headache migraine nausea sore rash dizziness fatigue covid allergy infection
subjects courses classes | subject course: math maths history science biology chemistry physics english literature art music geography economics psychology programming yoga pottery painting cooking dance
clothes outfits | outfit: dress shirt jeans jacket coat shoes boots sweater hoodie skirt suit hat scarf
drinks beverages | drink beverage: coffee tea wine beer juice smoothie cocktail soda lemonade milk water
vehicles | vehicle: car truck bike bicycle motorcycle scooter van bus
plants flowers | plant flower: rose tulip orchid sunflower lily daisy cactus fern basil tomato
relatives | family: mom mother dad father sister brother son daughter kids children husband wife grandma grandpa aunt uncle cousin parents
genres | genre music: rock jazz pop classical rap hiphop country blues metal punk folk reggae indie opera fantasy mystery romance thriller horror comedy drama documentary
breeds | breed: labrador retriever poodle bulldog beagle husky shepherd terrier chihuahua dachshund corgi pug collie spaniel rottweiler
conditions diseases injuries | condition disease injury health: diabetes asthma cancer arthritis depression anxiety stroke surgery fracture sprain concussion insomnia
colors colours | color colour: red blue green yellow purple pink orange black white grey gray brown
seasons | season: spring summer autumn fall winter
holidays | holiday: christmas thanksgiving easter halloween hanukkah diwali eid
traits qualities attributes personality | trait quality: kind caring thoughtful generous brave honest patient passionate determined creative loyal funny smart compassionate resilient
religions faith religious | religion: christian church catholic muslim mosque jewish synagogue buddhist temple hindu prayer bible
books novels | book novel: series trilogy memoir biography poetry fantasy mystery thriller
patriotic patriot: country military army navy veteran flag serve soldier
political politics: election vote campaign conservative liberal rights office
beach: ocean sea waves sand shore coast
mountains mountain: hiking peak summit trail climbing
children: son daughter baby toddler
park parks: camping hiking trail campfire picnic";

/// The instances of the kinds the question's `words` ask for, each once and none the question
/// says itself; none for a question in another language.
fn instances_asked(words: &[Word], language: Language) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    if language != Language::English {
        return out;
    }
    let says = |text: &str| words.iter().any(|word| word.folded == text);
    for (asking, instances) in KINDS.lines().filter_map(|line| line.split_once(':')) {
        let (always, headed) = asking.split_once('|').unwrap_or((asking, ""));
        let asks = words.iter().enumerate().any(|(at, word)| {
            always.split_whitespace().any(|kind| kind == word.folded)
                || (headed.split_whitespace().any(|kind| kind == word.folded) && heads_what(words, at))
        });
        if !asks {
            continue;
        }
        for instance in instances.split_whitespace() {
            if !out.contains(&instance) && !says(instance) {
                out.push(instance);
            }
        }
    }
    out
}

/// The terms searched for the instances the question's `words` ask for (`instances_asked`), each
/// once: their stems alone, never as prefixes ("art" would find "article").
pub fn instance_terms(words: &[Word], language: Language) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for instance in instances_asked(words, language) {
        let Some(stem) = query_terms(instance, language).into_iter().next() else { continue };
        if !terms.contains(&stem.text) {
            terms.push(stem.text);
        }
    }
    terms
}

/// Whether the word at `at` is what the question asks for: right after "what", "which" or
/// "favorite", or after "kind of", "type of", "sort of".
fn heads_what(words: &[Word], at: usize) -> bool {
    let before = |back: usize| at.checked_sub(back).map(|at| words[at].folded.as_str());
    matches!(before(1), Some("what" | "which" | "favorite" | "favourite"))
        || (before(1) == Some("of")
            && matches!(before(2), Some("kind" | "type" | "sort" | "kinds" | "types" | "sorts")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stems::language_of;
    use crate::words::words;

    fn asked(question: &str) -> Vec<&'static str> {
        instances_asked(&words(question), language_of(question))
    }

    #[test]
    fn a_kind_brings_its_instances_but_not_the_words_the_question_says() {
        let martial = asked("What martial arts has John done?");
        assert!(martial.contains(&"kickboxing") && martial.contains(&"taekwondo"), "{martial:?}");
        let sports = asked("What sports does John like besides basketball?");
        assert!(sports.contains(&"surfing") && !sports.contains(&"basketball"), "{sports:?}");
        let pets = asked("What pets does Nate have?");
        assert!(pets.contains(&"dog") && pets.contains(&"turtle"), "{pets:?}");
        let traits = asked("What personality traits might Melanie say Caroline has?");
        assert!(traits.contains(&"thoughtful") && traits.contains(&"caring"), "{traits:?}");
        let music = asked("What kind of music does Calvin like?");
        assert!(music.contains(&"jazz") && !asked("When did Calvin start his music career?").contains(&"jazz"));
    }

    #[test]
    fn a_trait_a_place_or_a_persons_children_bring_what_shows_them() {
        // Open-domain questions of LoCoMo's development half: the evidence says what a person
        // did or saw, never the quality or place the question names.
        let shows = |question: &str, instance: &str| {
            let asked = asked(question);
            assert!(asked.contains(&instance), "{question}: {asked:?}");
        };
        shows("Would John be considered a patriotic person?", "military");
        shows("Would Caroline be considered religious?", "church");
        shows("What would Caroline's political leaning likely be?", "conservative");
        shows("Does John live close to a beach or the mountains?", "ocean");
        shows("Does John live close to a beach or the mountains?", "hiking");
        shows("What are the names of John's children?", "daughter");
        shows("What pets wouldn't cause any discomfort to Joanna?", "reptile");
        shows("Would Melanie be more interested in going to a national park or a theme park?", "camping");
        shows("Would Tom be considered outdoorsy?", "camping");
        // "kids" asks for nothing: the pottery Melanie made with them is what is asked.
        assert!(asked("What types of pottery have Melanie and her kids made?").is_empty());
    }

    #[test]
    fn the_terms_are_the_instances_stems_each_once() {
        let question = "What martial arts and exercises has John done?";
        let terms = instance_terms(&words(question), language_of(question));
        assert!(
            terms.iter().any(|term| term == "kickbox") && terms.iter().any(|term| term == "taekwondo"),
            "{terms:?}"
        );
        assert_eq!(terms.iter().filter(|term| *term == "kickbox").count(), 1, "in two kinds, searched once: {terms:?}");
    }

    #[test]
    fn a_singular_asks_only_where_it_heads_the_what() {
        assert!(asked("What sport does John play?").contains(&"tennis"));
        assert!(asked("What is Nate's favorite game?").contains(&"chess"));
        assert!(asked("What type of meal does John cook?").contains(&"lasagna"));
        assert!(asked("What was the score of the last game John played?").is_empty());
        assert!(asked("What happened to John during his career?").is_empty());
        assert!(asked("What injury did John suffer?").contains(&"sprain"));
    }

    #[test]
    fn one_activity_another_language_or_no_kind_brings_nothing() {
        assert!(asked("What activity did John do after reading the book?").is_empty());
        assert!(asked("Quels sports est-ce que John fait avec les enfants ?").is_empty());
        assert!(asked("When did John meet Nate?").is_empty());
    }

    #[test]
    fn every_line_of_the_table_asks_and_answers() {
        for line in KINDS.lines() {
            let (asking, instances) = line.split_once(':').expect("a colon on every line");
            assert!(!asking.trim().is_empty() && !instances.trim().is_empty(), "{line}");
            assert!(line.chars().all(|c| c.is_ascii_lowercase() || " :|".contains(c)), "{line}");
        }
    }
}
