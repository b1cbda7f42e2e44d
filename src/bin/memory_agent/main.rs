//! `memory-agent`: the vault's memory from the terminal and for AI agents.
//!
//! ```text
//! memory-agent recall "question" --vault DIR [--budget N] [--json]
//! memory-agent ask "question" --vault DIR [--profile NAME] [--region R] [--json]
//! memory-agent remember "text" --vault DIR        (or the text on stdin)
//! memory-agent status --vault DIR [--json]
//! memory-agent mcp --vault DIR                    (an MCP server over stdio)
//! ```
//!
//! The same core as the plugin (`memory_agent::native`); the database is only read.

mod args;
mod mcp;
mod print;

use std::io::Read;
use std::process::ExitCode;

use args::{Command, Options};
use memory_agent::native::{remember, Session, VaultDir};

fn main() -> ExitCode {
    let options = match args::parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    if options.command == Command::Help {
        println!("{}", args::USAGE);
        return ExitCode::SUCCESS;
    }
    match run(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("memory-agent: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(options: Options) -> Result<(), String> {
    let vault = VaultDir::open(&options.vault, &options.config_dir)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start: {error}"))?;
    match options.command {
        Command::Recall => {
            let report = Session::open(vault)?.recall(&options.text, options.budget, &options.scope)?;
            print::recall(&report, options.json)
        }
        Command::Ask => {
            let session = Session::open(vault)?;
            let report = runtime.block_on(tokio::task::LocalSet::new().run_until(session.ask(
                &options.text,
                &options.scope,
                &options.credentials,
            )))?;
            print::ask(&report, options.json)
        }
        Command::Remember => {
            let text =
                if options.text.is_empty() || options.text == "-" { read_stdin()? } else { options.text.clone() };
            print::remember(&remember(&vault, &text)?, options.json)
        }
        Command::Status => print::status(&Session::open(vault)?.status()?, options.json),
        Command::Mcp => runtime.block_on(mcp::serve(vault, options.credentials)),
        Command::Help => Ok(()),
    }
}

fn read_stdin() -> Result<String, String> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|error| format!("cannot read the text from stdin: {error}"))?;
    String::from_utf8(bytes).map_err(|_| "the text on stdin is not UTF-8".to_owned())
}
