//! `notes-bench` (`npm run bench:notes [-- globs|chunker]`): the note rules on pathological
//! input, natively (the worker runs the same code as WebAssembly, a few times slower).
//!
//! 1. Excluded patterns that make a backtracking matcher explode (`*a*a*a*a*a*a*b` on a
//!    60-character name of `a`s): the time per match, next to ordinary patterns.
//! 2. The chunker on note shapes no person writes but a vault can hold: a million one-character
//!    lines, one line of several megabytes, a hundred thousand headings.
//!
//! It prints tables and asserts nothing about time; the behaviour is tested in `src/notes/`.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    bench::run();
}

#[cfg(not(target_arch = "wasm32"))]
#[allow(clippy::disallowed_methods)] // wall time of a native benchmark, not core logic
mod bench {
    use std::hint::black_box;
    use std::time::{Duration, Instant};

    use memory_agent::notes::{parse_note, Glob};

    /// Runs `work` until a quarter of a second has passed (at least once) and returns the mean time.
    fn time_per_run(mut work: impl FnMut()) -> Duration {
        let started = Instant::now();
        let mut runs = 0u32;
        while runs == 0 || started.elapsed() < Duration::from_millis(250) {
            work();
            runs += 1;
        }
        started.elapsed() / runs
    }

    fn globs() {
        println!("\nExcluded patterns, compiled (time per path matched)");
        let long_name = format!("{}.md", "a".repeat(57));
        let deep_path = format!("{}/{}", ["aaaaaaaa"; 8].join("/"), long_name);
        let cases = [
            ("*a*a*a*a*a*a*b", long_name.as_str()),
            ("*a*a*a*a*a*a*a*a*b", long_name.as_str()),
            ("**a**a**a**a**a**a**b/", deep_path.as_str()),
            ("*.excalidraw.md", "Drawings/2026/plan.excalidraw.md"),
            ("Archive/**", "Notes/Projects/lighthouse.md"),
            ("Daily/20??-*.md", "Daily/2026-01-02.md"),
        ];
        for (pattern, path) in cases {
            // The engine compiles its patterns once per change of the settings.
            let glob = Glob::new(pattern).expect("a pattern");
            let matched = glob.matches(path);
            let time = time_per_run(|| {
                black_box(black_box(&glob).matches(black_box(path)));
            });
            println!("  {pattern:<24} on {:>3} chars  {matched:<5}  {time:?}", path.chars().count());
        }
    }

    fn chunker() {
        println!("\nThe chunker (bound 1,500 tokens, one parse)");
        let words = "word ".repeat(800_000);
        let cases = [
            ("a million one-character lines", "x\n".repeat(1_000_000)),
            ("one 4 MB line of words", words),
            ("one 4 MB line without a space", "x".repeat(4_000_000)),
            ("100,000 headings", (0..100_000).map(|n| format!("## Heading {n}\n")).collect()),
            ("100,000 headings with a line each", (0..100_000).map(|n| format!("# H{n}\nline {n}\n")).collect()),
            ("a million blank lines around a word", format!("{}x{}", "\n".repeat(500_000), "  \n".repeat(500_000))),
            ("one line of 2,800 unclosed backtick runs", (1..=2_800).map(|n| "`".repeat(n) + " #tag ").collect()),
            ("100,000 distinct tags", (0..100_000).map(|n| format!("#tag{n} ")).collect()),
        ];
        for (shape, text) in cases {
            let started = Instant::now();
            let parsed = parse_note(black_box(&text), 1_500);
            let time = started.elapsed();
            println!("  {shape:<36} {:>5.1} MB  {:>5} chunks  {time:?}", text.len() as f64 / 1e6, parsed.chunks.len());
        }
    }

    pub fn run() {
        let only = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
        if only.as_deref().is_none_or(|only| "globs".contains(only)) {
            globs();
        }
        if only.as_deref().is_none_or(|only| "chunker".contains(only)) {
            chunker();
        }
    }
}
