//! `pack-wasm IN OUT`: writes IN as a `.lzma` file (header with the size, no end marker), the
//! form `plugin/worker/lzma.ts` decodes. Called by `scripts/lib/inline-wasm-plugin.mjs`.
//!
//! The settings were measured on both modules (the core and sql.js): the strongest preset (9:
//! a 64 MiB dictionary, binary-tree match finder) with the longest "nice" match (273) and no
//! position bits (WebAssembly code is not aligned to 2 or 4 bytes: pb 0 is 0.2% smaller than
//! the default 2). Four literal context bits (the most with lp 0 that liblzma still reads: xz
//! refuses lc + lp > 4) are 0.13% smaller than the common default of 3 (−700 bytes), and
//! `xz -d --format=lzma` decodes them (checked); 5 would win 0.2% and no standard tool could.

use std::io::Write;
use std::process::ExitCode;

use lzma_rust2::{LzmaOptions, LzmaWriter};

fn options() -> LzmaOptions {
    let mut options = LzmaOptions::with_preset(9);
    options.lc = 4;
    options.lp = 0;
    options.pb = 0;
    options.nice_len = 273;
    options
}

fn pack(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let size = u64::try_from(bytes.len()).expect("a file's size fits in 64 bits");
    let mut writer = LzmaWriter::new_use_header(Vec::with_capacity(bytes.len() / 3), &options(), Some(size))?;
    writer.write_all(bytes)?;
    writer.finish()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = args.as_slice() else {
        eprintln!("usage: pack-wasm IN OUT");
        return ExitCode::from(2);
    };
    let result = std::fs::read(input).and_then(|bytes| pack(&bytes)).and_then(|packed| std::fs::write(output, packed));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pack-wasm: {input} → {output}: {error}");
            ExitCode::FAILURE
        }
    }
}
