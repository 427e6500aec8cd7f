//! Format throughput for `bench/formats.sh`: reads every file named (or every file under a
//! folder) into memory, then times read + no-op write with one format and checks the bytes
//! come back identical. With `--placeholders`, times the `placeholders` analyzer over every
//! translation instead and prints each mismatch as `path<TAB>key<TAB>lang<TAB>rule`.
//!
//! `cargo run --release -p kapi-core --example roundtrip -- FORMAT [--repeat N] [--placeholders] PATH...`
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use kapi_core::check::analyzers::placeholders;

use kapi_core::formats;

/// The allocator the `kapi` binary uses, so the figures are the binary's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn walk(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        children.sort();
        for child in children {
            walk(&child, out);
        }
    } else {
        out.push(path.to_path_buf());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(id) = args.first() else {
        eprintln!("usage: roundtrip FORMAT [--repeat N] [--placeholders] PATH...");
        std::process::exit(2);
    };
    let Some(format) = formats::by_id(id) else {
        eprintln!("no format `{id}`");
        std::process::exit(2);
    };
    let mut repeat = 1usize;
    let mut check = false;
    let mut paths = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--repeat" => repeat = it.next().and_then(|n| n.parse().ok()).unwrap_or(1),
            "--placeholders" => check = true,
            other => walk(Path::new(other), &mut paths),
        }
    }
    let exts = format.info().extensions;
    let files: Vec<(PathBuf, Vec<u8>)> = paths
        .into_iter()
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| exts.contains(&e.to_ascii_lowercase().as_str()))
        })
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect();
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    if check {
        let parsed: Vec<_> = files
            .iter()
            .filter_map(|(p, b)| format.read(b).ok().map(|x| (p, x)))
            .collect();
        let start = Instant::now();
        let mut lines = Vec::new();
        for _ in 0..repeat {
            lines.clear();
            for (path, parsed) in &parsed {
                for block in &parsed.document.blocks {
                    for (lang, target) in &block.targets {
                        for m in placeholders::compare(&block.source, target) {
                            lines.push(format!(
                                "{}\t{}\t{lang}\t{}",
                                path.display(),
                                block.key.replace(['\t', '\n'], " "),
                                m.rule.id
                            ));
                        }
                    }
                }
            }
        }
        let secs = start.elapsed().as_secs_f64() / repeat as f64;
        for line in &lines {
            println!("{line}");
        }
        eprintln!(
            "placeholders: {} files, {:.1} MB, {:.3} s per pass, {} mismatches",
            parsed.len(),
            bytes as f64 / 1e6,
            secs,
            lines.len()
        );
        return;
    }
    let mut failures = 0;
    let start = Instant::now();
    for _ in 0..repeat {
        for (path, data) in &files {
            match format.read(data) {
                Ok(parsed) => match format.write(&parsed) {
                    Ok(out) if out == *data => {}
                    _ => {
                        failures += 1;
                        eprintln!("differs: {}", path.display());
                    }
                },
                Err(e) => {
                    failures += 1;
                    eprintln!("unreadable: {}: {e}", path.display());
                }
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let mb = (bytes * repeat) as f64 / 1e6;
    println!(
        "{id}\t{}\t{:.2}\t{:.3}\t{:.1}\t{failures}",
        files.len(),
        bytes as f64 / 1e6,
        secs / repeat as f64,
        mb / secs
    );
}
