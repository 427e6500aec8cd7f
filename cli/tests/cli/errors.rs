//! Bad input and exit codes: each gets a clear error naming the file, the position or field,
//! and the fix; nothing is written.

use super::Kapi;

#[test]
fn bad_flag_is_a_usage_error_with_exit_2() {
    let run = Kapi::empty().run(&["check", "--no-such-flag"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr.contains("--no-such-flag"),
        "{}",
        run.transcript()
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn bad_flag_under_json_is_a_json_envelope_on_stderr() {
    let run = Kapi::empty().run(&["check", "--fail-on", "sometimes", "--json"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    let envelope = run.stderr_json();
    assert_eq!(envelope["code"], "usage");
    assert!(
        envelope["error"]
            .as_str()
            .is_some_and(|e| e.contains("sometimes")),
        "{envelope}"
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn no_command_prints_the_overview_and_exits_0() {
    // Not a usage error: a host that drops a hook's arguments runs a bare `kapi`, and exit 2
    // would read there as a deny.
    let run = Kapi::empty().run(&[]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("check"), "{}", run.transcript());
}

#[test]
fn check_with_no_path_and_no_project_is_a_usage_error() {
    let run = Kapi::empty().run(&["check"]);
    assert_eq!(run.code, 2, "{}", run.transcript());
    assert!(
        run.stderr
            .contains("no PATH given and no kapi project here"),
        "{}",
        run.transcript()
    );
    assert!(run.stderr.contains("hint:"), "{}", run.transcript());
}

#[test]
fn missing_file_is_an_error_naming_it() {
    let run = Kapi::empty().run(&["check", "nope.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("`nope.md`: no such file or folder"),
        "{}",
        run.transcript()
    );
}

#[test]
fn missing_file_under_json_is_an_error_envelope() {
    let run = Kapi::empty().run(&["--json", "check", "nope.md"]);
    assert_eq!(run.code, 1);
    let envelope = run.stderr_json();
    assert_eq!(envelope["code"], "error");
    assert!(
        envelope["error"]
            .as_str()
            .is_some_and(|e| e.contains("nope.md"))
    );
    assert!(envelope["hints"].is_array());
    assert!(run.stdout.is_empty());
}

#[test]
fn binary_file_is_refused_with_its_offset() {
    let kapi = Kapi::empty();
    kapi.write("image.md", b"# x\n\x00\x01\x02");
    let run = kapi.run(&["check", "image.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("image.md"), "{}", run.transcript());
    assert!(run.stderr.contains("binary"), "{}", run.transcript());
}

#[test]
fn non_utf8_file_is_refused_with_line_and_column() {
    let kapi = Kapi::empty();
    kapi.write("latin1.md", b"# Caf\xe9\n\nok\n");
    let run = kapi.run(&["check", "latin1.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("latin1.md:1:6"), "{}", run.transcript());
    assert!(run.stderr.contains("UTF-8"), "{}", run.transcript());
}

#[test]
fn file_no_format_reads_is_an_error() {
    let kapi = Kapi::empty();
    kapi.write("data.bin", "x");
    let run = kapi.run(&["check", "data.bin"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("no format reads this file"),
        "{}",
        run.transcript()
    );
    assert!(run.stderr.contains("kapi formats"), "{}", run.transcript());
}

#[test]
fn path_outside_the_project_is_refused() {
    let kapi = Kapi::with_project("mini");
    let outside = tempfile::tempdir().expect("temp dir");
    let file = outside.path().join("x.md");
    std::fs::write(&file, "# x\n").expect("write");
    let run = kapi.run(&["check", file.to_str().expect("utf-8 path")]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("is outside the project"),
        "{}",
        run.transcript()
    );
}

#[test]
fn malformed_recipe_names_the_file_and_line() {
    let kapi = Kapi::with_project("mini");
    kapi.write(
        "kapi.yaml",
        "version: v1\ncollections:\n  - path: [unclosed\n",
    );
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("kapi.yaml:"), "{}", run.transcript());
}

#[test]
fn recipe_without_version_v1_is_refused() {
    let kapi = Kapi::with_project("mini");
    kapi.write("kapi.yaml", "version: v2\n");
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("version"), "{}", run.transcript());
}

#[test]
fn undeclared_channel_lists_the_valid_ones() {
    let kapi = Kapi::with_project("mini");
    let recipe = kapi
        .read("kapi.yaml")
        .replace("channel: mini/docs", "channel: mini/nope");
    kapi.write("kapi.yaml", recipe);
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(run.stderr.contains("mini/nope"), "{}", run.transcript());
    assert!(
        run.stderr.contains("mini/docs"),
        "the valid forms are listed: {}",
        run.transcript()
    );
}

#[test]
fn invalid_regex_in_voice_names_the_field() {
    let kapi = Kapi::with_project("mini");
    let voice = kapi
        .read(".kapi/voice.yaml")
        .replace(r"'(?i)\bsimply\b'", "'(unclosed'");
    kapi.write(".kapi/voice.yaml", voice);
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains(".kapi/voice.yaml"),
        "{}",
        run.transcript()
    );
    assert!(
        run.stderr.contains("style.prohibited_patterns[0].regex"),
        "{}",
        run.transcript()
    );
}

#[test]
fn unknown_voice_field_is_an_error_not_a_silent_skip() {
    let kapi = Kapi::with_project("mini");
    let voice = kapi
        .read(".kapi/voice.yaml")
        .replace("prohibited_patterns:", "prohibitted_patterns:");
    kapi.write(".kapi/voice.yaml", voice);
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains("prohibitted_patterns"),
        "{}",
        run.transcript()
    );
}

#[test]
fn malformed_terms_file_names_the_file() {
    let kapi = Kapi::with_project("mini");
    kapi.write(".kapi/terms.yaml", "version: v1\nconcepts:\n  - id: x\n    terms:\n      - text: foo\n        lang: en\n        status: banned\n");
    let run = kapi.run(&["check", "docs/clean.md"]);
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stderr.contains(".kapi/terms.yaml"),
        "{}",
        run.transcript()
    );
    assert!(run.stderr.contains("banned"), "{}", run.transcript());
}

#[test]
fn kapi_folder_without_a_recipe_is_an_error() {
    let kapi = Kapi::empty().env("KAPI_NO_PROJECT", "");
    std::fs::create_dir_all(kapi.path().join(".kapi")).expect("mkdir");
    kapi.write("a.md", "# A\n");
    let mut cmd = kapi.command(&["check", "a.md"]);
    cmd.env_remove("KAPI_NO_PROJECT");
    let out = cmd.output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(".kapi"), "{stderr}");
}

#[test]
fn kapi_project_env_binds_a_project_from_outside() {
    let project = Kapi::with_project("mini");
    let elsewhere = Kapi::empty();
    let mut cmd = elsewhere.command(&["context", "docs/bad.md", "--json"]);
    cmd.env_remove("KAPI_NO_PROJECT")
        .env("KAPI_PROJECT", project.path());
    let out = cmd.output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["point"]["path"], "docs/bad.md");
}

#[test]
fn interrupt_exits_130() {
    let kapi = Kapi::empty();
    // `kapi apply -` waits for the change set on a stdin that stays open until interrupted.
    let mut child = kapi
        .command(&["apply", "-"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("kapi starts");
    // Held open past the wait (`wait` closes a child's stdin, and an end of input that came
    // before the signal was handled read as an empty change set, exit 2).
    let stdin = child.stdin.take();
    // Signalled once it catches SIGINT (2), not after a fixed sleep.
    let status = format!("/proc/{}/status", child.id());
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(10) {
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("SigCgt:"))
                    .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            })
            .is_some_and(|mask| mask & (1 << 1) != 0);
        if caught || !std::path::Path::new("/proc").exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    let status = child.wait().expect("kapi ends");
    drop(stdin);
    assert_eq!(status.code(), Some(130));
}

#[test]
fn a_named_pipe_socket_or_device_is_refused_not_read() {
    let kapi = Kapi::empty();
    let fifo = kapi.path().join("pipe.md");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let _socket =
        std::os::unix::net::UnixListener::bind(kapi.path().join("sock.md")).expect("socket binds");
    for (path, what) in [
        ("pipe.md", "a named pipe"),
        ("sock.md", "a socket"),
        ("/dev/null", "a device"),
    ] {
        for verb in ["check", "inspect"] {
            let run = kapi.run(&[verb, path]);
            assert_eq!(run.code, 1, "{verb} {path}: {}", run.transcript());
            assert!(
                run.stderr
                    .contains(&format!("is not a regular file (it is {what})")),
                "{verb} {path}: {}",
                run.transcript()
            );
        }
    }
}
