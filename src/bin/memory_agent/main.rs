//! `memory-agent`: the vault's memory from the terminal and for AI agents.
//!
//! ```text
//! memory-agent recall "question" --vault DIR [--budget N] [--json]
//! memory-agent ask "question" --vault DIR [--profile NAME] [--region R] [--json]
//! memory-agent remember "text" --vault DIR        (or the text on stdin)
//! memory-agent index --vault DIR [--yes] [--force]
//! memory-agent status --vault DIR [--json]
//! memory-agent mcp --vault DIR                    (an MCP server over stdio)
//! ```
//!
//! The same core as the plugin (`memory_agent::native`), as a device of its own: its own
//! index in the vault's config folder, its own log folder in the memory folder.

mod args;
mod mcp;
mod print;

use std::io::Read;
use std::process::ExitCode;

use args::{Command, Options};
use memory_agent::native::{IndexOptions, Session, VaultDir};

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
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start: {error}"))?;
    // The server answers `initialize` whatever the vault: a problem with it is each tool's error.
    if options.command == Command::Mcp {
        return runtime.block_on(mcp::serve(options.vault, options.config_dir, options.credentials));
    }
    let vault = VaultDir::open(&options.vault, &options.config_dir)?;
    // Every verb but `mcp` is one session: opened (every device's log replayed), used, saved.
    let in_session = |use_it: &dyn Fn(&Session) -> Result<(), String>| {
        let session = Session::open(vault.clone())?;
        let used = use_it(&session);
        session.finish(used)
    };
    let run_async = |work: std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + '_>>| {
        runtime.block_on(tokio::task::LocalSet::new().run_until(work))
    };
    match options.command {
        Command::Recall => in_session(&|session| {
            print::recall(&session.recall(&options.text, options.budget, &options.scope)?, options.json)
        }),
        Command::Ask => in_session(&|session| {
            run_async(Box::pin(async {
                let report = session.ask(&options.text, &options.scope, &options.credentials).await?;
                print::ask(&report, options.json)
            }))
        }),
        Command::Remember => {
            let text =
                if options.text.is_empty() || options.text == "-" { read_stdin()? } else { options.text.clone() };
            in_session(&|session| {
                run_async(Box::pin(async {
                    print::remember(&session.remember(&text, &options.credentials).await?, options.json)
                }))
            })
        }
        Command::Index => in_session(&|session| {
            let index = IndexOptions { force: options.force, yes: options.yes };
            run_async(Box::pin(async {
                print::index(&session.index(&options.credentials, index).await?, options.json)
            }))
        }),
        Command::Status => in_session(&|session| print::status(&session.status()?, options.json)),
        Command::Mcp | Command::Help => Ok(()),
    }
}

fn read_stdin() -> Result<String, String> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|error| format!("cannot read the text from stdin: {error}"))?;
    String::from_utf8(bytes).map_err(|_| "the text on stdin is not UTF-8".to_owned())
}
