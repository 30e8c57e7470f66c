//! `fbc-edit completions SHELL` and `fbc-edit man`: the scripts load in their shell, the page
//! renders without a warning.

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt as _;

fn fbc(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn bash_loads_the_completion_script() {
    let bin = env!("CARGO_BIN_EXE_fbc-edit");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source <('{bin}' completions bash) && complete -p fbc-edit"
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("complete "), "{stdout}");
    assert!(stdout.trim_end().ends_with(" fbc-edit"), "{stdout}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_shell_gets_a_script_that_knows_the_subcommands() {
    for (shell, first) in [
        ("bash", "_fbc__edit()"),
        ("zsh", "#compdef fbc-edit"),
        ("fish", "complete -c fbc-edit"),
        ("elvish", "use builtin;"),
        ("powershell", "using namespace System.Management.Automation"),
    ] {
        let out = fbc(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(first),
            "{shell}: {}",
            &text[..text.len().min(300)]
        );
        for sub in ["validate", "mcp", "set-skip-range"] {
            assert!(text.contains(sub), "{shell} does not complete {sub}");
        }
    }
    let out = fbc(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn man_renders_the_page_without_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let page = tmp.path().join("fbc-edit.1");
    let out = fbc(&["man"]);
    assert!(out.status.success());
    std::fs::write(&page, &out.stdout).unwrap();
    let roff = String::from_utf8(out.stdout).unwrap();
    assert!(roff.starts_with(".ie \\n(.g .ds Aq"), "{}", &roff[..200]);
    // man-db renders it as a user reads it; groff with every warning on checks the roff.
    let man = Command::new("man")
        .args(["-l"])
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .env("MAN_KEEP_FORMATTING", "0")
        .output()
        .expect("man (man-db) is missing: run `bash .ci/test-setup`");
    // The page as read: overstruck (bold, underlined) letters taken once, lines joined and the
    // spaces of justified text taken as one.
    let mut text = String::new();
    for c in String::from_utf8_lossy(&man.stdout).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        man.status.success(),
        "{}",
        String::from_utf8_lossy(&man.stderr)
    );
    assert!(
        man.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&man.stderr)
    );
    for want in [
        "fbc-edit mcp",
        "fbc-edit edit promote",
        "--skip-range",
        "completions",
    ] {
        assert!(text.contains(want), "the page lacks {want:?}:\n{text}");
    }
    let groff = Command::new("groff")
        .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
        .arg(&page)
        .output()
        .expect("groff is missing: run `bash .ci/test-setup`");
    assert!(groff.status.success());
    assert!(
        groff.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&groff.stderr)
    );
}
