//! Globs for the "excluded patterns" setting, matched in time linear in the path's length
//! times the pattern's, whatever the pattern.
//!
//! A backtracking matcher tries every way of sharing the name among the stars:
//! `*a*a*a*a*a*a*b` on a 60-character name took 9 s, and each further `*a` multiplies it.
//! Here a pattern is compiled once into a small automaton whose states are positions in the
//! pattern, and a path is read once, keeping the set of states reachable so far (an NFA
//! simulation, as in Thompson's construction). A regular-expression crate (`globset`,
//! `regex`) would do the same at the price of its size in the WebAssembly build; the four
//! constructs of this syntax do not need one.
//!
//! The syntax, as the plugin's settings describe it: `*` any characters within one folder
//! level, `?` one character other than `/`, `**` any characters at any depth, `**/` any
//! number of whole folders (none included); a pattern without `/` matches the end of the
//! path from the start of a file or folder name, in any folder (`(?:^|/)pattern$`); one with
//! a `/` matches from the vault's root (a leading `/` is dropped); a pattern ending in `/`
//! covers everything inside that folder.

/// The characters one step of a pattern accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Char(char),
    NotSlash,
    Any,
}

impl Class {
    fn accepts(self, c: char) -> bool {
        match self {
            Class::Char(expected) => c == expected,
            Class::NotSlash => c != '/',
            Class::Any => true,
        }
    }
}

/// One state of the automaton; state `i` moves on to state `i + 1` unless it says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reads one character of the class, then moves on (a literal, `?`, the `/` of `**/`).
    One(Class),
    /// Reads any number of characters of the class, then moves on without reading (`*`, `**`).
    Many(Class),
    /// Moves on without reading, both to the next state and to the state `to` (`**/`'s
    /// "no folder at all"); `to` lies further on.
    Fork { to: usize },
}

/// One excluded pattern, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    states: Vec<State>,
    /// Without a `/`, the pattern may start after any `/` of the path, not only at its start.
    floating: bool,
}

impl Glob {
    /// Compiles `pattern`; `None` for a pattern that is empty once trimmed (it matches nothing).
    pub fn new(pattern: &str) -> Option<Glob> {
        let trimmed = pattern.trim().trim_start_matches('/');
        if trimmed.is_empty() {
            return None;
        }
        let mut states = compile(trimmed);
        // A pattern naming a folder (`Archive/`) covers everything inside it.
        if trimmed.ends_with('/') {
            states.push(State::Many(Class::Any));
        }
        Some(Glob { states, floating: !trimmed.contains('/') })
    }

    /// Whether the whole of `path` matches: one pass over its characters.
    pub fn matches(&self, path: &str) -> bool {
        let accept = self.states.len();
        let mut active = vec![false; accept + 1];
        let mut next = vec![false; accept + 1];
        active[0] = true;
        self.close(&mut active);
        for c in path.chars() {
            next.fill(false);
            self.step(&active, c, &mut next);
            if self.floating && c == '/' {
                next[0] = true;
            }
            self.close(&mut next);
            std::mem::swap(&mut active, &mut next);
            if !self.floating && !active.contains(&true) {
                return false;
            }
        }
        active[accept]
    }

    /// The states reached from `active` by reading `c`.
    fn step(&self, active: &[bool], c: char, next: &mut [bool]) {
        for (index, state) in self.states.iter().enumerate().filter(|(index, _)| active[*index]) {
            match *state {
                State::One(class) if class.accepts(c) => next[index + 1] = true,
                State::Many(class) if class.accepts(c) => next[index] = true,
                _ => {}
            }
        }
    }

    /// Adds the states reachable without reading. Every such move goes forward, so one pass
    /// in order reaches them all.
    fn close(&self, active: &mut [bool]) {
        for (index, state) in self.states.iter().enumerate() {
            if !active[index] {
                continue;
            }
            match *state {
                State::Many(_) => active[index + 1] = true,
                State::Fork { to } => {
                    debug_assert!(to > index, "a move without reading goes backward");
                    active[index + 1] = true;
                    active[to] = true;
                }
                State::One(_) => {}
            }
        }
    }
}

/// The states of a trimmed pattern, before the folder rule.
fn compile(pattern: &str) -> Vec<State> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut states = Vec::with_capacity(chars.len() + 1);
    let mut at = 0;
    while at < chars.len() {
        match (chars[at], chars.get(at + 1), chars.get(at + 2)) {
            ('*', Some('*'), Some('/')) => {
                // `(?:.*/)?`: skip the next two states, or any characters then a `/`.
                let fork = states.len();
                states.extend([State::Fork { to: fork + 3 }, State::Many(Class::Any), State::One(Class::Char('/'))]);
                at += 3;
            }
            ('*', Some('*'), _) => {
                states.push(State::Many(Class::Any));
                at += 2;
            }
            ('*', ..) => {
                states.push(State::Many(Class::NotSlash));
                at += 1;
            }
            ('?', ..) => {
                states.push(State::One(Class::NotSlash));
                at += 1;
            }
            (c, ..) => {
                states.push(State::One(Class::Char(c)));
                at += 1;
            }
        }
    }
    states
}

/// The excluded patterns of the settings, compiled once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobSet {
    globs: Vec<Glob>,
}

impl GlobSet {
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> GlobSet {
        GlobSet { globs: patterns.iter().filter_map(|pattern| Glob::new(pattern.as_ref())).collect() }
    }

    /// Whether any pattern matches `path`.
    pub fn matches(&self, path: &str) -> bool {
        self.globs.iter().any(|glob| glob.matches(path))
    }
}

/// Whether `pattern` matches `path` (compiling the pattern; hold a `GlobSet` to match many paths).
pub fn glob_matches(pattern: &str, path: &str) -> bool {
    Glob::new(pattern).is_some_and(|glob| glob.matches(path))
}

#[cfg(test)]
mod tests {
    use super::{glob_matches, GlobSet};

    #[test]
    fn the_syntax_as_documented() {
        let cases = [
            // `*` stays within one folder level.
            ("*.md", "a/b/c.md", true),
            ("a/*.md", "a/b/c.md", false),
            ("a/*.md", "a/c.md", true),
            ("a/*", "a/", true),
            ("a/*/c.md", "a/b/c.md", true),
            ("a/*/c.md", "a/b/x/c.md", false),
            // `?` is one character other than `/`.
            ("?.md", "ab.md", false),
            ("?.md", "a.md", true),
            ("x?.md", "d/xy.md", true),
            ("a?b.md", "a/b.md", false),
            ("ngày-?.md", "Nhật ký/ngày-5.md", true),
            ("🌅?.md", "x/🌅é.md", true),
            // `**` crosses folders; `**/` may match no folder at all, but only whole folders.
            ("a/**", "a/x/y.md", true),
            ("a/**/c.md", "a/c.md", true),
            ("a/**/c.md", "a/x/y/c.md", true),
            ("a/**/c.md", "a/xc.md", false),
            ("a/**c.md", "a/x/yc.md", true),
            ("**/c.md", "c.md", true),
            ("**/c.md", "x/c.md", true),
            ("a/***.md", "a/x/y.md", true),
            ("a/**/**/c.md", "a/c.md", true),
            // Without `/`: the end of the path, from the start of a name, in any folder.
            ("b.md", "a/b.md", true),
            ("b.md", "ab.md", false),
            ("b.md", "a/b.md/c", false),
            ("b", "a/b/c.md", false),
            ("*.excalidraw.md", "Drawings/x.excalidraw.md", true),
            // With `/`: from the root; a leading `/` and spaces are dropped.
            ("a/b.md", "x/a/b.md", false),
            ("/a/b.md", "a/b.md", true),
            ("  Daily/20??-*.md ", "Daily/2026-01-02.md", true),
            ("Daily/20??-*.md", "Daily/Notes-2026.md", false),
            // A pattern ending in `/` covers everything inside that folder, not the folder's siblings.
            ("a/", "a/x.md", true),
            ("a/", "a/x/y.md", true),
            ("a/", "ab/x.md", false),
            ("a/**/", "a/x.md", true),
            // Nothing to match.
            ("", "a.md", false),
            ("/", "a.md", false),
            ("   ", "a.md", false),
            // Other characters are literal, regular-expression ones included.
            ("a+b (1).md", "a+b (1).md", true),
            ("a.md", "abmd", false),
            ("[ab].md", "a.md", false),
        ];
        for (pattern, path, expected) in cases {
            assert_eq!(glob_matches(pattern, path), expected, "{pattern:?} on {path:?}");
        }
    }

    #[test]
    fn explosive_patterns_get_the_right_answer_on_long_names() {
        let name = "a".repeat(57) + ".md";
        let deep = format!("{}/{name}", ["aaaaaaaa"; 8].join("/"));
        for stars in [6, 8, 12] {
            let pattern = "*a".repeat(stars);
            assert!(!glob_matches(&format!("{pattern}*b"), &name), "{pattern}*b");
            assert!(glob_matches(&format!("{pattern}*.md"), &name), "{pattern}*.md");
            assert!(glob_matches(&format!("{pattern}*"), &deep), "the last folder is a name");
            assert!(!glob_matches(&format!("**{}**b/", "a**".repeat(stars)), &deep));
            assert!(glob_matches(&format!("**{}**/", "a**".repeat(stars)), &deep));
        }
        let needs_more_than_the_name = "*a".repeat(60) + "*";
        assert!(!glob_matches(&needs_more_than_the_name, &name));
        assert!(glob_matches(&needs_more_than_the_name, &("a".repeat(60) + ".md")));
    }

    /// The backtracking matcher this module replaced (exponential, exact): the reference.
    fn backtracking(glob: &[char], path: &[char]) -> bool {
        match glob.first() {
            None => path.is_empty(),
            Some('*') if glob.get(1) == Some(&'*') => {
                let folders = glob.get(2) == Some(&'/');
                let rest = if folders { &glob[3..] } else { &glob[2..] };
                (0..=path.len()).any(|skip| {
                    let (skipped, remaining) = path.split_at(skip);
                    (!folders || skipped.last().is_none_or(|c| *c == '/')) && backtracking(rest, remaining)
                })
            }
            Some('*') => (0..=path.len())
                .take_while(|skip| path[..*skip].iter().all(|c| *c != '/'))
                .any(|skip| backtracking(&glob[1..], &path[skip..])),
            Some('?') => path.first().is_some_and(|c| *c != '/') && backtracking(&glob[1..], &path[1..]),
            Some(c) => path.first() == Some(c) && backtracking(&glob[1..], &path[1..]),
        }
    }

    fn reference(pattern: &str, path: &str) -> bool {
        let trimmed = pattern.trim().trim_start_matches('/');
        if trimmed.is_empty() {
            return false;
        }
        let mut glob: Vec<char> = trimmed.chars().collect();
        if trimmed.ends_with('/') {
            glob.extend(['*', '*']);
        }
        let path: Vec<char> = path.chars().collect();
        let starts = std::iter::once(0).chain((0..path.len()).filter(|at| path[*at] == '/').map(|at| at + 1));
        let starts: Vec<usize> = if trimmed.contains('/') { vec![0] } else { starts.collect() };
        starts.into_iter().any(|start| backtracking(&glob, &path[start..]))
    }

    #[test]
    fn short_patterns_agree_with_the_backtracking_reference() {
        // Every pattern and path over a small alphabet, from a fixed pseudo-random sequence.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut draw = |alphabet: &[char], most: u64| -> String {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let length = seed % (most + 1);
            (0..length).map(|at| alphabet[((seed >> (8 + 3 * at)) % alphabet.len() as u64) as usize]).collect()
        };
        for _ in 0..20_000 {
            let pattern = draw(&['a', 'b', '/', '*', '*', '?'], 7);
            let path = draw(&['a', 'b', '/'], 9);
            assert_eq!(glob_matches(&pattern, &path), reference(&pattern, &path), "{pattern:?} on {path:?}");
        }
    }

    #[test]
    fn a_set_matches_when_any_pattern_does() {
        let set = GlobSet::new(&["", "*.excalidraw.md", "Archive/**"]);
        assert!(set.matches("x/y.excalidraw.md"));
        assert!(set.matches("Archive/2020/old.md"));
        assert!(!set.matches("Notes/a.md"));
        assert!(!GlobSet::new::<&str>(&[]).matches("a.md"));
        assert!(!GlobSet::new(&["  "]).matches(""));
    }
}
