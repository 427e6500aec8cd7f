//! Hook payloads: any bytes either parse as a payload or give an error (never a panic), and
//! every accessor a hook uses (host sniffing, session, cwd, edited paths, an `apply_patch`
//! patch's files, path resolution) answers on whatever parsed. `cargo +nightly fuzz run hook_payload`.
#![no_main]

use kapi_host::hooks::payload::{Payload, is_edit_tool, patch_paths, resolve};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = patch_paths(text);
        let _ = is_edit_tool(text);
        let _ = resolve(text, Some(std::path::Path::new("/p")));
    }
    let Ok(payload) = Payload::parse(data) else {
        return;
    };
    let _ = payload.sniff();
    let _ = payload.session();
    let _ = payload.tool_name();
    let _ = payload.stop_hook_active();
    let cwd = payload.cwd();
    for path in payload.edited_paths() {
        let _ = resolve(&path, cwd.as_deref());
    }
});
