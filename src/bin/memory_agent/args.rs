//! The command line: a verb, its text, and options (`--vault` or `MEMORY_AGENT_VAULT`).

use std::path::PathBuf;

use memory_agent::agents::query::QuestionScope;
use memory_agent::native::{CredentialOptions, DEFAULT_CONFIG_DIR};

pub const USAGE: &str = "Usage:
  memory-agent recall \"question\" --vault DIR [--budget TOKENS] [--note PATH] [--folder PATH] [--from DAY] [--to DAY] [--json]
      The memories and insights a question would be answered from, with their notes. No model call.
      --note and --folder (each may repeat) and --from/--to (YYYY-MM-DD) limit it to those.
  memory-agent ask \"question\" --vault DIR [--note PATH] [--folder PATH] [--from DAY] [--to DAY] [--profile NAME] [--region REGION] [--json]
      The answer, from Claude on AWS Bedrock, with its sources (limited like recall's).
  memory-agent remember \"text\" --vault DIR [--profile NAME] [--region REGION] [--json]
      Remembers the text (or stdin) now, with Claude on AWS Bedrock; every device gets it from this one's log.
  memory-agent index --vault DIR [--yes] [--force] [--profile NAME] [--region REGION] [--json]
      Remembers the vault's new and changed notes, for when Obsidian is not running on this vault.
      --yes goes ahead when more than 50 notes would be paid for; --force runs even though
      Obsidian's Memory Agent looks alive (its heartbeat is less than 150 s old).
  memory-agent status --vault DIR [--json]
  memory-agent mcp --vault DIR [--profile NAME] [--region REGION]
      A Model Context Protocol server over stdio (tools: recall, ask, remember, status).

Options:
  --vault DIR        the vault's folder (or MEMORY_AGENT_VAULT)
  MEMORY_AGENT_DEVICE names this computer's device (else ~/.config/memory-agent/device, made once)
  --config-dir NAME  the vault's config folder, if not .obsidian
  --profile NAME     the AWS profile (or AWS_PROFILE); AWS_BEARER_TOKEN_BEDROCK for an API key
  --region REGION    the AWS region (else AWS_REGION, the profile's, the plugin's)

A custom endpoint is taken only as AWS tools take it: AWS_ENDPOINT_URL_BEDROCK_RUNTIME, else
AWS_ENDPOINT_URL, else the profile's endpoint_url; never from the vault's settings.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Recall,
    Ask,
    Remember,
    Index,
    Status,
    Mcp,
    Help,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub command: Command,
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
    /// What `recall` is limited to (`--note`, `--folder`, `--from`, `--to`).
    pub scope: QuestionScope,
}

pub fn parse(args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut args = args.peekable();
    let command = match args.next().as_deref() {
        Some("recall") => Command::Recall,
        Some("ask") => Command::Ask,
        Some("remember") => Command::Remember,
        Some("index") => Command::Index,
        Some("status") => Command::Status,
        Some("mcp") => Command::Mcp,
        None | Some("help" | "--help" | "-h") => Command::Help,
        Some(other) => return Err(format!("Unknown command \"{other}\".")),
    };
    let mut options = Options {
        command,
        text: String::new(),
        vault: std::env::var_os("MEMORY_AGENT_VAULT").map(PathBuf::from).unwrap_or_default(),
        config_dir: DEFAULT_CONFIG_DIR.to_owned(),
        budget: None,
        json: false,
        force: false,
        yes: false,
        credentials: CredentialOptions::default(),
        scope: QuestionScope::default(),
    };
    let mut words: Vec<String> = Vec::new();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value."));
        match arg.as_str() {
            "--vault" => options.vault = PathBuf::from(value("--vault")?),
            "--config-dir" => options.config_dir = value("--config-dir")?,
            "--budget" => {
                let budget = value("--budget")?;
                options.budget =
                    Some(budget.parse().map_err(|_| format!("--budget takes a number of tokens, not \"{budget}\"."))?);
            }
            "--profile" => options.credentials.profile = Some(value("--profile")?),
            "--region" => options.credentials.region = Some(value("--region")?),
            "--note" => options.scope.notes.push(value("--note")?),
            "--folder" => options.scope.folders.push(value("--folder")?),
            "--from" => options.scope.from = Some(value("--from")?),
            "--to" => options.scope.to = Some(value("--to")?),
            "--json" => options.json = true,
            "--force" => options.force = true,
            "--yes" | "-y" => options.yes = true,
            "--help" | "-h" => options.command = Command::Help,
            flag if flag.starts_with("--") => return Err(format!("Unknown option {flag}.")),
            _ => words.push(arg),
        }
    }
    options.text = words.join(" ");
    if options.command == Command::Help {
        return Ok(options);
    }
    if options.vault.as_os_str().is_empty() {
        return Err("Which vault? Give its folder with --vault DIR (or set MEMORY_AGENT_VAULT).".into());
    }
    if matches!(options.command, Command::Recall | Command::Ask) && options.text.trim().is_empty() {
        return Err("Type a question.".into());
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Options, String> {
        parse(args.iter().map(|arg| (*arg).to_owned()))
    }

    #[test]
    fn index_takes_its_flags_and_remember_its_text() {
        let index = parsed(&["index", "--vault", "/notes", "--yes", "--force"]).unwrap();
        assert_eq!((index.command, index.yes, index.force), (Command::Index, true, true));
        let plain = parsed(&["index", "--vault", "/notes"]).unwrap();
        assert!(!plain.yes && !plain.force);
        let remember = parsed(&["remember", "Alice", "approved", "--vault", "/notes", "--profile", "work"]).unwrap();
        assert_eq!((remember.command, remember.text.as_str()), (Command::Remember, "Alice approved"));
        assert_eq!(remember.credentials.profile.as_deref(), Some("work"));
        assert!(parsed(&["index", "--vault", "/notes", "--yess"]).unwrap_err().contains("Unknown option"));
    }
}
