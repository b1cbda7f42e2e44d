//! The store contract suite on the rusqlite driver (the WebAssembly tests run it on sql.js).

use memory_agent::store::contract::{run_all, DriverFactory};
use memory_agent::store::rusqlite_driver::RusqliteDriver;
use memory_agent::store::DriverError;

struct Rusqlite;

impl DriverFactory for Rusqlite {
    type Driver = RusqliteDriver;
    fn load(&self, bytes: &[u8]) -> Result<RusqliteDriver, DriverError> {
        RusqliteDriver::from_bytes(bytes)
    }
}

#[test]
fn every_store_scenario_passes_on_rusqlite() {
    let reports = run_all(&Rusqlite);
    for report in &reports {
        println!("{} {}", if report.ok { "ok  " } else { "FAIL" }, report.name);
    }
    assert!(reports.len() >= 20, "only {} scenarios ran", reports.len());
    let failures: Vec<String> = reports
        .iter()
        .filter(|report| !report.ok)
        .map(|report| format!("{}: {}", report.name, report.error.as_deref().unwrap_or("")))
        .collect();
    assert!(failures.is_empty(), "failed scenarios:\n{}", failures.join("\n"));
}
