//! The core on a computer instead of in Obsidian: what the `memory-agent` command and its MCP
//! server share (native only, the `cli` feature). The command is a device of its own: the same
//! store, selection, agents and Bedrock client as the plugin, over a vault folder, with its own
//! index of the memory (`memory-<device>.db`, `session`) kept current by replaying every
//! device's log in the vault (`device_log`), and its own log folder for what it remembers
//! (`remember`, `index`). The plugin's settings come from its `data.json`, HTTP goes through
//! `ureq`, credentials and region through AWS's own chain (`aws-config`), and the time zone is
//! the computer's.

mod coordination;
mod credentials;
mod device;
mod device_log;
mod host;
mod index;
mod plugin_data;
mod presence;
mod read_note;
mod reports;
mod session;
mod vault;

pub use coordination::fresh_plugin_heartbeats;
pub use credentials::{aws_setup, AwsSetup, CredentialOptions};
pub use device::{device_id, DEVICE_VARIABLE};
pub use device_log::{log_files, replay_logs, sync_log, DiskFiles};
pub use host::NativeHost;
pub use index::{IndexOptions, BULK_CONFIRM_NOTES};
pub use plugin_data::PluginData;
pub use presence::{has_memory, NO_MEMORY_YET};
pub use read_note::PassageRequest;
pub use reports::{
    describe_place, AskReport, CitedSource, IndexReport, NotePassage, RecallReport, RecalledInsight, RecalledMemory,
    RememberReport, RememberedMemory, StatusReport,
};
pub use session::{Session, MAX_REMEMBER_TEXT_BYTES};
pub use vault::{VaultDir, DEFAULT_CONFIG_DIR};
