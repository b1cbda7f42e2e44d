//! The core on a computer instead of in Obsidian: what the `memory-agent` command and its MCP
//! server share (native only, the `cli` feature). The same store, selection, agents and
//! Bedrock client as the plugin, over a vault folder: the plugin's settings from its
//! `data.json`, a consistent snapshot of its database (never written here), HTTP through
//! `ureq`, credentials and region through AWS's own chain (`aws-config`), and the local
//! time zone. Text to remember goes to an inbox note that the plugin remembers, so there is
//! never a second writer of the database.

mod credentials;
mod host;
mod inbox;
mod plugin_data;
mod reports;
mod session;
mod vault;

pub use credentials::{aws_setup, AwsSetup, CredentialOptions};
pub use host::NativeHost;
pub use inbox::{append_to_inbox, INBOX_FOLDER, MAX_INBOX_TEXT_BYTES};
pub use plugin_data::PluginData;
pub use reports::{
    AskReport, CitedSource, RecallReport, RecalledInsight, RecalledMemory, RememberReport, StatusReport,
};
pub use session::{remember, Session};
pub use vault::{VaultDir, DEFAULT_CONFIG_DIR};
