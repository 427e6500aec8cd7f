//! Rebuild kapi-host when the embedded skill tree (`skills/kapi/`, served by `kapi help` and
//! copied by `kapi init`) changes: include_dir does not tell cargo which files it read.

fn main() {
    println!("cargo:rerun-if-changed=../skills/kapi");
}
