//! The `memory-agent` command as a terminal user and a script meet it, through the built binary:
//! `--version`, help per verb, completion scripts, exit statuses (0 ok, 1 failure, 2 usage, 3 no
//! memory yet), the vault from `MEMORY_AGENT_VAULT`, and a closed pipe ending quietly.
//!
//! Every run gets a home and a device of its own, so nothing reads or writes the user's config.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use memory_agent::native::{Session, VaultDir, NO_MEMORY_YET};

const BINARY: &str = env!("CARGO_BIN_EXE_memory-agent");
const DEVICE: &str = "command-line-test";

/// A folder under the system's temp folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("memory-agent-command-line-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The command with `home` as its home and config folder, this test's device, and no vault or
/// AWS settings inherited from whoever runs the tests.
fn command(home: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(BINARY);
    command
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("MEMORY_AGENT_DEVICE", DEVICE)
        .env_remove("MEMORY_AGENT_VAULT")
        .env_remove("AWS_PROFILE")
        .stdin(Stdio::null());
    command
}

fn run(home: &Path, args: &[&str]) -> Output {
    command(home, args).output().expect("the command runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A vault folder (with Obsidian's config folder) and nothing remembered.
fn bare_vault(root: &Path) -> PathBuf {
    let vault = root.join("vault");
    std::fs::create_dir_all(vault.join(".obsidian")).unwrap();
    std::fs::write(vault.join("Lisbon.md"), "# Lisbon\nWe fly on 14 March.\n").unwrap();
    vault
}

/// A vault with memory: this device's index, made and saved by the core's own session.
fn vault_with_memory(root: &Path) -> PathBuf {
    let vault = bare_vault(root);
    let session = Session::open_as(VaultDir::open(&vault, ".obsidian").unwrap(), DEVICE).unwrap();
    session.finish(Ok(())).unwrap();
    let index = vault.join(format!(".obsidian/plugins/memory-agent/memory-{DEVICE}.db"));
    assert!(std::fs::metadata(&index).is_ok_and(|file| file.len() > 0), "the session saved {}", index.display());
    vault
}

/// Runs the command with stdout a pipe whose reader is gone before it starts, as `| head -1`
/// leaves it once `head` has its line; returns the exit status and stderr.
fn run_into_closed_pipe(home: &Path, args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = command(home, args).stdout(writer).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (child.wait().unwrap().code(), stderr)
}

#[test]
fn version_is_the_crates() {
    let home = TempDir::new("version");
    for flag in ["--version", "-V"] {
        let ran = run(home.path(), &[flag]);
        assert_eq!(ran.status.code(), Some(0));
        assert_eq!(text(&ran.stdout), format!("memory-agent {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn each_verb_has_its_own_help() {
    let home = TempDir::new("help");
    let recall = run(home.path(), &["recall", "--help"]);
    assert_eq!(recall.status.code(), Some(0));
    let help = text(&recall.stdout);
    assert!(help.contains("Usage: memory-agent recall"), "{help}");
    for option in
        ["--budget <TOKENS>", "--note <PATH>", "--folder <PATH>", "--from <DAY>", "--to <DAY>", "--vault <DIR>"]
    {
        assert!(help.contains(option), "recall's help names {option}: {help}");
    }
    for elsewhere in ["--force", "--yes", "Commands:", "completions"] {
        assert!(!help.contains(elsewhere), "recall's help is not the global list ({elsewhere}): {help}");
    }
    let top = run(home.path(), &["help"]);
    assert_eq!(top.status.code(), Some(0));
    let top = text(&top.stdout);
    for verb in ["recall", "ask", "remember", "index", "status", "mcp", "completions"] {
        assert!(top.contains(&format!("\n  {verb} ")), "the global help lists {verb}: {top}");
    }
    assert!(top.contains("3  the vault has no Memory Agent memory yet"), "the exit statuses: {top}");
    let index = text(&run(home.path(), &["help", "index"]).stdout);
    assert!(index.contains("--force") && index.contains("-y, --yes") && !index.contains("--budget"), "{index}");
}

#[test]
fn completions_name_every_verb() {
    let home = TempDir::new("completions");
    for (shell, marker) in
        [("bash", "complete -F"), ("zsh", "#compdef memory-agent"), ("fish", "complete -c memory-agent")]
    {
        let ran = run(home.path(), &["completions", shell]);
        assert_eq!(ran.status.code(), Some(0), "{shell}: {}", text(&ran.stderr));
        let script = text(&ran.stdout);
        assert!(script.contains(marker), "{shell}'s script: {script}");
        for verb in ["recall", "ask", "remember", "index", "status", "mcp", "completions"] {
            assert!(script.contains(verb), "{shell}'s script names {verb}");
        }
        assert!(script.contains("vault"), "{shell}'s script completes the options");
    }
    for shell in ["powershell", "elvish"] {
        let ran = run(home.path(), &["completions", shell]);
        assert_eq!(ran.status.code(), Some(0));
        assert!(text(&ran.stdout).contains("recall"), "{shell}");
    }
}

#[test]
fn usage_errors_exit_2_with_clap_s_message() {
    let home = TempDir::new("usage");
    let vault = bare_vault(home.path());
    let vault = vault.to_str().unwrap();
    for (args, says) in [
        (vec!["recall", "why", "--nope", "--vault", vault], "unexpected argument '--nope'"),
        (vec!["recall", "why", "-q", "--vault", vault], "unexpected argument '-q'"),
        (vec!["frobnicate", "--vault", vault], "unrecognized subcommand 'frobnicate'"),
        (vec!["recall", "--vault", vault], "<QUESTION>"),
        (vec!["status"], "Which vault?"),
        (vec!["completions", "tcsh"], "invalid value 'tcsh'"),
    ] {
        let ran = run(home.path(), &args);
        assert_eq!(ran.status.code(), Some(2), "{args:?}: {}", text(&ran.stderr));
        assert!(text(&ran.stderr).contains(says), "{args:?}: {}", text(&ran.stderr));
        assert!(ran.stdout.is_empty(), "{args:?}: nothing on stdout");
    }
}

#[test]
fn a_vault_that_is_not_there_fails_with_exit_1() {
    let home = TempDir::new("missing");
    let missing = home.path().join("no-such-vault");
    let ran = run(home.path(), &["status", "--vault", missing.to_str().unwrap()]);
    assert_eq!(ran.status.code(), Some(1));
    let stderr = text(&ran.stderr);
    assert!(stderr.starts_with("memory-agent: ") && stderr.contains("is not a folder"), "{stderr}");
}

#[test]
fn a_vault_with_no_memory_yet_exits_3_for_recall_ask_and_status() {
    let home = TempDir::new("no-memory");
    let vault = bare_vault(home.path());
    let vault = vault.to_str().unwrap();
    for args in [
        vec!["status", "--vault", vault],
        vec!["recall", "when", "--vault", vault],
        vec!["ask", "when?", "--vault", vault],
    ] {
        let ran = run(home.path(), &args);
        assert_eq!(ran.status.code(), Some(3), "{args:?}: {}", text(&ran.stderr));
        assert!(text(&ran.stderr).contains(NO_MEMORY_YET), "{args:?}: {}", text(&ran.stderr));
    }
    assert!(!Path::new(vault).join(".obsidian/plugins").exists(), "no index was started for a vault with no memory");
    // The vault from the environment, read as `--vault` is.
    let from_env = command(home.path(), &["status"]).env("MEMORY_AGENT_VAULT", vault).output().unwrap();
    assert_eq!(from_env.status.code(), Some(3), "{}", text(&from_env.stderr));
}

#[test]
fn a_vault_with_memory_answers_with_options_anywhere_and_a_question_after_double_dash() {
    let home = TempDir::new("memory");
    let vault = vault_with_memory(home.path());
    let vault = vault.to_str().unwrap();
    let status = run(home.path(), &["--json", "status", &format!("--vault={vault}")]);
    assert_eq!(status.status.code(), Some(0), "{}", text(&status.stderr));
    let report: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(report["device"], DEVICE);
    let recall = run(home.path(), &["--vault", vault, "recall", "--json", "--", "-5", "degrees"]);
    assert_eq!(recall.status.code(), Some(0), "{}", text(&recall.stderr));
    let report: serde_json::Value = serde_json::from_slice(&recall.stdout).unwrap();
    assert!(report["memories"].is_array(), "{report}");
    let plain = run(home.path(), &["recall", "when", "do", "we", "fly", "--vault", vault]);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    assert!(text(&plain.stdout).contains("of 0 memories"), "{}", text(&plain.stdout));
}

#[test]
fn a_closed_pipe_ends_quietly_with_exit_0() {
    let home = TempDir::new("pipe");
    let vault = vault_with_memory(home.path());
    let vault = vault.to_str().unwrap();
    for args in [
        vec!["status", "--vault", vault],
        vec!["recall", "when do we fly", "--json", "--vault", vault],
        vec!["completions", "bash"],
        vec!["recall", "--help"],
        vec!["--version"],
    ] {
        let (code, stderr) = run_into_closed_pipe(home.path(), &args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?} says nothing: {stderr}");
    }
}

#[test]
fn the_mcp_server_answers_a_line_that_is_not_json_with_json_rpc_s_parse_error_and_goes_on() {
    use std::io::{BufRead, BufReader, Write};
    let home = TempDir::new("mcp-parse-error");
    let vault = bare_vault(home.path());
    let mut server = command(home.path(), &["mcp", "--vault", vault.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#;
    writeln!(stdin, "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":").unwrap();
    writeln!(stdin, "not json at all").unwrap();
    writeln!(stdin, "{initialize}").unwrap();
    stdin.flush().unwrap();
    let mut replies = BufReader::new(server.stdout.take().unwrap()).lines();
    let mut next = || serde_json::from_str::<serde_json::Value>(&replies.next().unwrap().unwrap()).unwrap();
    for _ in 0..2 {
        let reply = next();
        assert_eq!(reply["error"]["code"], -32700, "{reply}");
        assert!(reply["id"].is_null() && reply["jsonrpc"] == "2.0", "{reply}");
    }
    let initialized = next();
    assert_eq!(initialized["id"], 1, "the session goes on: {initialized}");
    assert_eq!(initialized["result"]["serverInfo"]["name"], "memory-agent");
    drop(stdin);
    assert!(server.wait().unwrap().success(), "closing stdin ends the session");
}
