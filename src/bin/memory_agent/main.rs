//! `memory-agent`: the vault's memory from the terminal and for AI agents.
//!
//! ```text
//! memory-agent recall what did Alice say --vault DIR [--budget N] [--json]
//! memory-agent ask "question" --vault DIR [--profile NAME] [--region R] [--json]
//! memory-agent remember "text" --vault DIR        (or the text on stdin)
//! memory-agent index --vault DIR [--yes] [--force]
//! memory-agent status --vault DIR [--json]
//! memory-agent mcp --vault DIR                    (an MCP server over stdio)
//! memory-agent completions zsh                    (a shell's completion script)
//! ```
//!
//! The same core as the plugin (`memory_agent::native`), as a device of its own: its own
//! index in the vault's config folder, its own log folder in the memory folder. This file only
//! wires the command line (`args`) to the core and the reports to stdout (`print`).

mod args;
mod mcp;
mod print;

use std::io::{self, Read, Write};
use std::process::ExitCode;

use args::{Command, Request, VaultRequest};
use memory_agent::native::{has_memory, IndexOptions, Session, VaultDir, NO_MEMORY_YET};

/// Why the command stopped before its end, each with its exit status (listed in `--help`).
#[derive(Debug)]
enum Stop {
    /// Exit 1: the reason goes to stderr.
    Failed(String),
    /// Exit 3: `recall`, `ask` or `status` on a vault no device has remembered anything of.
    NoMemoryYet,
    /// Exit 0, saying nothing: the reader of stdout went away (`| head -1`). Rust ignores
    /// SIGPIPE, so the write fails with `BrokenPipe` where a C tool would be ended by the signal;
    /// ripgrep (`crates/core/main.rs`) ends with success then too, as Unix tools do.
    ClosedPipe,
}

impl From<String> for Stop {
    fn from(message: String) -> Self {
        Stop::Failed(message)
    }
}

impl Stop {
    fn from_output(error: io::Error) -> Self {
        if error.kind() == io::ErrorKind::BrokenPipe {
            Stop::ClosedPipe
        } else {
            Stop::Failed(format!("cannot write the output: {error}"))
        }
    }
}

fn main() -> ExitCode {
    let request = match args::parse(std::env::args_os()) {
        Ok(request) => request,
        Err(error) => return clap_exit(&error),
    };
    let ended = match request {
        Request::Completions(shell) => completions(shell),
        Request::OnVault(request) => run(*request),
    };
    match ended {
        Ok(()) | Err(Stop::ClosedPipe) => ExitCode::SUCCESS,
        Err(Stop::Failed(message)) => say_on_stderr(&message, ExitCode::FAILURE),
        Err(Stop::NoMemoryYet) => say_on_stderr(NO_MEMORY_YET, ExitCode::from(3)),
    }
}

/// Help and version (stdout, exit 0) or a usage error (stderr, exit 2), as clap words them. A
/// failed write (a closed pipe) changes nothing: `Error::print` returns it instead of panicking.
fn clap_exit(error: &clap::Error) -> ExitCode {
    let _ = error.print();
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

/// `memory-agent: <message>` on stderr; a stderr that cannot be written is no reason to panic.
fn say_on_stderr(message: &str, code: ExitCode) -> ExitCode {
    let _ = writeln!(io::stderr(), "memory-agent: {message}");
    code
}

/// Writes through `print` to stdout: the one way the command's output leaves it.
fn write_out(print: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Stop> {
    let mut out = io::stdout().lock();
    print(&mut out).and_then(|()| out.flush()).map_err(Stop::from_output)
}

/// The shell's completion script, from the same declaration as the parser.
fn completions(shell: clap_complete::Shell) -> Result<(), Stop> {
    // Generated into memory first: `clap_complete::generate` panics when its writer fails.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut args::command(), "memory-agent", &mut script);
    write_out(|out| out.write_all(&script))
}

fn run(request: VaultRequest) -> Result<(), Stop> {
    // The server answers `initialize` whatever the vault: a problem with it is each tool's error.
    if request.command == Command::Mcp {
        let runtime = runtime()?;
        return Ok(runtime.block_on(mcp::serve(request.vault, request.config_dir, request.credentials))?);
    }
    let vault = VaultDir::open(&request.vault, &request.config_dir)?;
    // Before a session opens (which would start an index): an empty answer would read as
    // "your notes say nothing about it".
    if matches!(request.command, Command::Recall | Command::Ask | Command::Status) && !has_memory(&vault)? {
        return Err(Stop::NoMemoryYet);
    }
    let json = request.json;
    match request.command {
        Command::Recall => {
            let report = in_session(vault, |session| session.recall(&request.text, request.budget, &request.scope))?;
            write_out(|out| print::recall(out, &report, json))
        }
        Command::Ask => {
            let report = in_async_session(vault, async |session| {
                session.ask(&request.text, &request.scope, &request.credentials).await
            })?;
            write_out(|out| print::ask(out, &report, json))
        }
        Command::Remember => {
            let text =
                if request.text.is_empty() || request.text == "-" { read_stdin()? } else { request.text.clone() };
            let report = in_async_session(vault, async |session| session.remember(&text, &request.credentials).await)?;
            write_out(|out| print::remember(out, &report, json))
        }
        Command::Index => {
            let options = IndexOptions { force: request.force, yes: request.yes };
            let report = in_async_session(vault, async |session| session.index(&request.credentials, options).await)?;
            write_out(|out| print::index(out, &report, json))
        }
        Command::Status => {
            let report = in_session(vault, Session::status)?;
            write_out(|out| print::status(out, &report, json))
        }
        Command::Mcp => Ok(()),
    }
}

/// One session: opened (every device's log replayed), used, saved; the report is printed after
/// the save, so a reader that goes away early cannot stop it.
fn in_session<T>(vault: VaultDir, use_it: impl FnOnce(&Session) -> Result<T, String>) -> Result<T, String> {
    let session = Session::open(vault)?;
    let used = use_it(&session);
    session.finish(used)
}

/// `in_session` for the verbs that call Bedrock, on a single-threaded runtime (the engine is
/// not `Send`, so its futures run on a `LocalSet`).
fn in_async_session<T>(vault: VaultDir, use_it: impl AsyncFnOnce(&Session) -> Result<T, String>) -> Result<T, String> {
    runtime()?.block_on(tokio::task::LocalSet::new().run_until(async {
        let session = Session::open(vault)?;
        let used = use_it(&session).await;
        session.finish(used)
    }))
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|error| format!("cannot start: {error}"))
}

fn read_stdin() -> Result<String, String> {
    let mut bytes = Vec::new();
    io::stdin().read_to_end(&mut bytes).map_err(|error| format!("cannot read the text from stdin: {error}"))?;
    String::from_utf8(bytes).map_err(|_| "the text on stdin is not UTF-8".to_owned())
}
