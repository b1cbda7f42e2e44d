//! The command line, declared once with clap's derive API: the verbs, their options, the help
//! each prints and the completion scripts generated from the same declaration.
//!
//! Conventions followed (as `rg`, `fd` and `gh` users expect): `--version`/`-V`, help per verb,
//! `--opt=value`, `--` ending the options, unknown flags refused (exit 2), global options before
//! or after the verb. See clap's derive reference, <https://docs.rs/clap/latest/clap/_derive/>.

use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
use clap_complete::Shell;
use memory_agent::agents::query::QuestionScope;
use memory_agent::native::{CredentialOptions, DEFAULT_CONFIG_DIR};

/// What each exit status means; `--help` shows it and the README repeats it.
const AFTER_HELP: &str = "\
Exit status:
  0  done (also when the reader of the output went away, as with `| head -1`)
  1  failed: the reason is on stderr, after `memory-agent:`
  2  usage error: an unknown option, a missing question or vault
  3  the vault has no Memory Agent memory yet (recall, ask, status)

Environment:
  MEMORY_AGENT_VAULT   the vault's folder, when --vault is not given
  MEMORY_AGENT_DEVICE  names this computer's device (else ~/.config/memory-agent/device, made once)
  AWS_PROFILE, AWS_REGION, AWS_BEARER_TOKEN_BEDROCK and the rest of AWS's usual chain

A custom endpoint is taken only as AWS tools take it: AWS_ENDPOINT_URL_BEDROCK_RUNTIME, else
AWS_ENDPOINT_URL, else the profile's endpoint_url; never from the vault's settings.";

/// `memory-agent`: the Obsidian vault's memory from the terminal and for AI agents.
#[derive(Debug, Parser)]
#[command(
    name = "memory-agent",
    version,
    about = "The memory of an Obsidian vault (Memory Agent's), from the terminal and for AI agents.",
    long_about = "The memory of an Obsidian vault from the terminal and for AI agents: the same core as \
                  the Memory Agent plugin, as a device of its own (its own index in the vault's config \
                  folder, its own log in the memory folder).",
    after_help = AFTER_HELP,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalOptions,
    #[command(subcommand)]
    pub command: Verb,
}

/// Options every verb takes, before or after it (`memory-agent --vault ~/Notes status`).
#[derive(Debug, Args)]
pub struct GlobalOptions {
    /// The vault's folder.
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "MEMORY_AGENT_VAULT",
        hide_env_values = true,
        help_heading = "Global options"
    )]
    pub vault: Option<PathBuf>,
    /// The vault's config folder, if not .obsidian.
    #[arg(long, global = true, value_name = "NAME", default_value = DEFAULT_CONFIG_DIR, help_heading = "Global options")]
    pub config_dir: String,
    /// The AWS profile (else AWS_PROFILE); AWS_BEARER_TOKEN_BEDROCK for a Bedrock API key.
    #[arg(long, global = true, value_name = "NAME", help_heading = "Global options")]
    pub profile: Option<String>,
    /// The AWS region (else AWS_REGION, the profile's, the plugin's).
    #[arg(long, global = true, value_name = "REGION", help_heading = "Global options")]
    pub region: Option<String>,
    /// The report as JSON, for scripts.
    #[arg(long, global = true, help_heading = "Global options")]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum Verb {
    /// The memories and insights a question would be answered from, with their notes. No model call.
    #[command(long_about = "The memories and insights a question would be answered from, with their notes: ids, \
                      dates, note paths and headings. No model call, no cost.")]
    Recall {
        /// The question (names, dates and keywords help); `--` before one that starts with `-`.
        #[arg(required = true, value_name = "QUESTION")]
        words: Vec<String>,
        /// At most this many tokens of memories (default: the plugin's setting).
        #[arg(long, value_name = "TOKENS")]
        budget: Option<usize>,
        #[command(flatten)]
        scope: ScopeOptions,
    },
    /// The answer, from Claude on AWS Bedrock, with its sources (limited like recall's).
    #[command(long_about = "The answer, from Claude on AWS Bedrock (one paid model call with this computer's AWS \
                      credentials), with numbered sources resolved to note paths, and its tokens and cost.")]
    Ask {
        /// The question; `--` before one that starts with `-`.
        #[arg(required = true, value_name = "QUESTION")]
        words: Vec<String>,
        #[command(flatten)]
        scope: ScopeOptions,
    },
    /// Remembers the text (or stdin, or `-`) now, with Claude on AWS Bedrock.
    #[command(long_about = "Remembers the text now, with Claude on AWS Bedrock: with no text (or `-`) it reads \
                      stdin. Every device gets the memory from this one's log, with no model call.")]
    Remember {
        /// The text to remember; none, or `-`, reads it from stdin.
        #[arg(value_name = "TEXT")]
        words: Vec<String>,
    },
    /// Remembers the vault's new and changed notes, for when Obsidian is not running on this vault.
    Index {
        /// Go ahead when more than 50 notes would be paid for.
        #[arg(short = 'y', long)]
        yes: bool,
        /// Run even though Obsidian's Memory Agent looks alive (its heartbeat is less than 150 s old).
        #[arg(long)]
        force: bool,
    },
    /// How much is remembered, this device's index and jobs, and the model.
    Status,
    /// A Model Context Protocol server over stdio, for Claude Code, Claude Desktop and other MCP clients.
    #[command(long_about = "A Model Context Protocol server over stdio, for Claude Code, Claude Desktop, Kiro and \
                      other MCP clients: its tools recall memories, read the note passage a memory cites, ask (a \
                      paid model call), remember and report the status of this vault's memory. For example:\n  \
                      claude mcp add memory-agent -- memory-agent mcp --vault ~/Notes")]
    Mcp,
    /// Prints a shell's completion script to stdout; needs no vault.
    #[command(long_about = "Prints a shell's completion script to stdout; needs no vault. For example:\n  \
                      memory-agent completions zsh > ~/.zfunc/_memory-agent\n  \
                      memory-agent completions bash > ~/.local/share/bash-completion/completions/memory-agent\n  \
                      memory-agent completions fish > ~/.config/fish/completions/memory-agent.fish")]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: Shell,
    },
}

/// What a question is limited to, as the panel's scope: notes, folders, days.
#[derive(Debug, Args)]
pub struct ScopeOptions {
    /// Only this note (a vault path); may repeat.
    #[arg(long = "note", value_name = "PATH")]
    pub notes: Vec<String>,
    /// Only this folder and its subfolders (a vault path); may repeat.
    #[arg(long = "folder", value_name = "PATH")]
    pub folders: Vec<String>,
    /// From this day on (YYYY-MM-DD).
    #[arg(long, value_name = "DAY")]
    pub from: Option<String>,
    /// Up to this day (YYYY-MM-DD).
    #[arg(long, value_name = "DAY")]
    pub to: Option<String>,
}

impl ScopeOptions {
    fn into_scope(self) -> QuestionScope {
        QuestionScope { notes: self.notes, folders: self.folders, from: self.from, to: self.to, ..Default::default() }
    }
}

/// What to do, once the command line is read and checked.
#[derive(Debug)]
pub enum Request {
    /// A verb on a vault (boxed: it is many times the size of a shell).
    OnVault(Box<VaultRequest>),
    /// `completions SHELL`: no vault involved.
    Completions(Shell),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Recall,
    Ask,
    Remember,
    Index,
    Status,
    Mcp,
}

/// A verb on a vault with everything it needs.
#[derive(Debug, Clone)]
pub struct VaultRequest {
    pub command: Command,
    /// The question (`recall`, `ask`) or the text (`remember`): the trailing words, joined.
    pub text: String,
    pub vault: PathBuf,
    pub config_dir: String,
    pub budget: Option<usize>,
    pub json: bool,
    /// `index`: run although a plugin heartbeat is fresh.
    pub force: bool,
    /// `index`: go ahead with a bulk of notes to pay for.
    pub yes: bool,
    pub credentials: CredentialOptions,
    /// What `recall` and `ask` are limited to (`--note`, `--folder`, `--from`, `--to`).
    pub scope: QuestionScope,
}

/// The command line as a request; clap's error (usage, or help and version to print) otherwise.
pub fn parse<I, T>(args: I) -> Result<Request, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::try_parse_from(args)?;
    let GlobalOptions { vault, config_dir, profile, region, json } = cli.global;
    let (command, words, budget, scope, yes, force) = match cli.command {
        Verb::Completions { shell } => return Ok(Request::Completions(shell)),
        Verb::Recall { words, budget, scope } => (Command::Recall, words, budget, scope.into_scope(), false, false),
        Verb::Ask { words, scope } => (Command::Ask, words, None, scope.into_scope(), false, false),
        Verb::Remember { words } => (Command::Remember, words, None, QuestionScope::default(), false, false),
        Verb::Index { yes, force } => (Command::Index, Vec::new(), None, QuestionScope::default(), yes, force),
        Verb::Status => (Command::Status, Vec::new(), None, QuestionScope::default(), false, false),
        Verb::Mcp => (Command::Mcp, Vec::new(), None, QuestionScope::default(), false, false),
    };
    let text = words.join(" ");
    if matches!(command, Command::Recall | Command::Ask) && text.trim().is_empty() {
        return Err(usage_error(ErrorKind::MissingRequiredArgument, "Type a question."));
    }
    // Not clap's `required`: `completions` needs no vault, and the message names the variable too.
    let Some(vault) = vault.filter(|vault| !vault.as_os_str().is_empty()) else {
        return Err(usage_error(
            ErrorKind::MissingRequiredArgument,
            "Which vault? Give its folder with --vault DIR (or set MEMORY_AGENT_VAULT).",
        ));
    };
    Ok(Request::OnVault(Box::new(VaultRequest {
        command,
        text,
        vault,
        config_dir,
        budget,
        json,
        force,
        yes,
        credentials: CredentialOptions { profile, region },
        scope,
    })))
}

/// A usage error as clap words its own (`error: ...`, the usage line, exit 2).
fn usage_error(kind: ErrorKind, message: &str) -> clap::Error {
    Cli::command().error(kind, message)
}

/// The whole command's declaration, for completion scripts.
pub fn command() -> clap::Command {
    Cli::command()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Request, clap::Error> {
        // Tests never read the caller's vault from the environment: they pass `--vault`, or an
        // empty one where the variable's reading is tested on its own (`parse_with_env`).
        parse(std::iter::once("memory-agent").chain(args.iter().copied()))
    }

    fn on_vault(args: &[&str]) -> VaultRequest {
        match parsed(args) {
            Ok(Request::OnVault(request)) => *request,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    fn error_kind(args: &[&str]) -> ErrorKind {
        parsed(args).expect_err("refused").kind()
    }

    #[test]
    fn index_takes_its_flags_and_remember_its_text() {
        let index = on_vault(&["index", "--vault", "/notes", "-y", "--force"]);
        assert_eq!((index.command, index.yes, index.force), (Command::Index, true, true));
        let plain = on_vault(&["index", "--vault", "/notes"]);
        assert!(!plain.yes && !plain.force);
        let remember = on_vault(&["remember", "Alice", "approved", "--vault", "/notes", "--profile", "work"]);
        assert_eq!((remember.command, remember.text.as_str()), (Command::Remember, "Alice approved"));
        assert_eq!(remember.credentials.profile.as_deref(), Some("work"));
        assert_eq!(error_kind(&["index", "--vault", "/notes", "--yess"]), ErrorKind::UnknownArgument);
    }

    #[test]
    fn the_vault_takes_an_equals_sign_and_goes_before_or_after_the_verb() {
        let after = on_vault(&["status", "--vault=/notes", "--json"]);
        let before = on_vault(&["--vault=/notes", "--json", "status"]);
        for request in [after, before] {
            assert_eq!(
                (request.command, request.vault.as_path(), request.json),
                (Command::Status, "/notes".as_ref(), true)
            );
            assert_eq!(request.config_dir, ".obsidian");
        }
        let other = on_vault(&["--config-dir", ".config", "--region=eu-west-1", "ask", "why?", "--vault", "/v"]);
        assert_eq!((other.config_dir.as_str(), other.credentials.region.as_deref()), (".config", Some("eu-west-1")));
    }

    #[test]
    fn questions_are_the_trailing_words_and_double_dash_ends_the_options() {
        let recall = on_vault(&["recall", "what", "did", "Alice", "--vault", "/v", "say", "--budget=800"]);
        assert_eq!((recall.text.as_str(), recall.budget), ("what did Alice say", Some(800)));
        let negative = on_vault(&["recall", "--vault", "/v", "--", "-5", "degrees", "--json"]);
        assert_eq!(negative.text, "-5 degrees --json", "after `--` every word is the question's");
        assert!(!negative.json);
    }

    #[test]
    fn unknown_flags_are_refused_never_taken_into_the_question() {
        assert_eq!(error_kind(&["recall", "why", "-x", "--vault", "/v"]), ErrorKind::UnknownArgument);
        assert_eq!(error_kind(&["recall", "why", "--verbose", "--vault", "/v"]), ErrorKind::UnknownArgument);
        assert_eq!(error_kind(&["recall", "-5", "degrees", "--vault", "/v"]), ErrorKind::UnknownArgument);
        assert_eq!(error_kind(&["status", "--budget", "5", "--vault", "/v"]), ErrorKind::UnknownArgument);
        let error = parsed(&["recall", "why", "-x", "--vault", "/v"]).unwrap_err();
        assert_eq!(error.exit_code(), 2);
    }

    #[test]
    fn note_and_folder_repeat_and_limit_the_question() {
        let ask = on_vault(&[
            "ask",
            "what",
            "--note",
            "A.md",
            "--note=B.md",
            "--folder",
            "Trips",
            "--from",
            "2026-01-01",
            "--to",
            "2026-01-31",
            "--vault",
            "/v",
        ]);
        assert_eq!(ask.scope.notes, ["A.md", "B.md"]);
        assert_eq!(ask.scope.folders, ["Trips"]);
        assert_eq!((ask.scope.from.as_deref(), ask.scope.to.as_deref()), (Some("2026-01-01"), Some("2026-01-31")));
    }

    #[test]
    fn a_question_and_a_vault_are_required_but_completions_need_neither() {
        assert_eq!(error_kind(&["recall", "--vault", "/v"]), ErrorKind::MissingRequiredArgument);
        assert_eq!(error_kind(&["ask", " ", "--vault", "/v"]), ErrorKind::MissingRequiredArgument);
        assert!(matches!(parsed(&["completions", "zsh"]), Ok(Request::Completions(Shell::Zsh))));
        assert_eq!(error_kind(&["completions", "tcsh"]), ErrorKind::InvalidValue);
        assert_eq!(error_kind(&["--budget", "x", "recall", "q", "--vault", "/v"]), ErrorKind::UnknownArgument);
        assert_eq!(error_kind(&["recall", "q", "--budget", "many", "--vault", "/v"]), ErrorKind::ValueValidation);
    }

    #[test]
    fn help_is_per_verb_and_version_is_the_crates() {
        let help = parsed(&["recall", "--help"]).unwrap_err();
        assert_eq!((help.kind(), help.exit_code()), (ErrorKind::DisplayHelp, 0));
        let text = help.render().to_string();
        assert!(text.contains("--budget <TOKENS>") && text.contains("--folder <PATH>"), "{text}");
        assert!(text.contains("--vault <DIR>"), "the global options are listed too: {text}");
        assert!(!text.contains("--force") && !text.contains("Exit status"), "not the other verbs' options: {text}");
        let version = parsed(&["--version"]).unwrap_err();
        assert_eq!(version.kind(), ErrorKind::DisplayVersion);
        assert_eq!(version.render().to_string().trim(), format!("memory-agent {}", env!("CARGO_PKG_VERSION")));
        assert_eq!(error_kind(&["help", "index"]), ErrorKind::DisplayHelp);
    }

    #[test]
    fn the_vault_comes_from_the_environment_when_not_given() {
        // The only test that reads or changes the variable: every other one passes `--vault`.
        std::env::set_var("MEMORY_AGENT_VAULT", "/from-env");
        let from_env = on_vault(&["status"]);
        let given = on_vault(&["status", "--vault", "/given"]);
        std::env::remove_var("MEMORY_AGENT_VAULT");
        let missing = error_kind(&["status"]);
        assert_eq!(from_env.vault, PathBuf::from("/from-env"));
        assert_eq!(given.vault, PathBuf::from("/given"), "--vault wins over the variable");
        assert_eq!(missing, ErrorKind::MissingRequiredArgument);
    }

    #[test]
    fn the_declaration_is_consistent() {
        Cli::command().debug_assert();
    }
}
