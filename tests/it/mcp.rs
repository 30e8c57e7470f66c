//! `fbc-edit mcp` driven by a real MCP client, the official Python SDK (installed into
//! TARGET/mcp-venv by .ci/test-setup): tools listed with their schemas, a broken catalog validated,
//! an edit dry-run and applied (the files compared byte for byte with the command line's edit),
//! refusals returned as tool errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{copy_dir, tree};
use clap::CommandFactory;
use serde_json::{Value, json};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_fbc-edit"))
}

/// The virtual environment's Python: beside the build's profile directory. The test fails when it
/// is missing (`bash .ci/test-setup` makes it).
fn python() -> PathBuf {
    let target = bin()
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap();
    let py = target.join("mcp-venv/bin/python");
    assert!(
        py.is_file(),
        "{} is missing: run `bash .ci/test-setup` (it installs the MCP Python SDK there)",
        py.display()
    );
    py
}

/// Starts the server on `roots` through the Python client, makes `calls` in order, and returns
/// what the client saw.
fn session(cwd: &Path, roots: &[&Path], calls: Value) -> Value {
    let mut args = vec!["mcp".to_string()];
    args.extend(roots.iter().map(|r| r.display().to_string()));
    let plan = json!({
        "command": bin(),
        "args": args,
        "cwd": cwd,
        "calls": calls,
    });
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/mcp_client.py");
    let mut child = Command::new(python())
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(plan.to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the client failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn copy_of(rel: &str, to: &Path) {
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join(rel), to);
}

fn promote(dry_run: bool) -> Value {
    json!({"name": "edit", "arguments": {
        "path": "demo",
        "edit": "promote",
        "package": "cache-operator",
        "bundle": "cache-operator.v1.4.0",
        "channel": "stable",
        "skip_range": ">=1.0.0 <1.4.0",
        "dry_run": dry_run,
    }})
}

#[test]
fn a_real_client_lists_validates_edits_and_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let served = base.join("served");
    copy_of(
        "testdata/validate/default-channel-missing",
        &served.join("broken"),
    );
    copy_of("assets/demo-catalog", &served.join("demo"));
    // The same edit made by the command line, to compare the written files with.
    let by_cli = base.join("by-cli");
    copy_of("assets/demo-catalog", &by_cli);
    let before = tree(&served.join("demo"));
    let out = session(
        &served,
        &[],
        json!([
            {"name": "validate", "arguments": {"path": "broken"}},
            promote(true),
            promote(false),
            {"name": "edit", "arguments": {
                "path": "demo", "edit": "promote", "package": "cache-operator",
                "bundle": "cache-operator.v9.9.9", "channel": "stable"}},
            {"name": "validate", "arguments": {"path": base.join("by-cli").display().to_string()}},
            {"name": "list", "arguments": {"path": "demo", "package": "cache-operator"}},
            {"name": "edit", "arguments": {
                "path": "demo", "edit": "remove-entry", "package": "cache-operator",
                "channel": "stable", "entry": "cache-operator.v1.4.0", "dry_run": true}},
            {"name": "edit", "arguments": {
                "path": "demo", "edit": "set-default-channel", "package": "cache-operator",
                "channel": "stable", "bundle": "x"}},
        ]),
    );
    assert_eq!(out["server"], "fbc-edit");
    assert!(
        out["instructions"]
            .as_str()
            .unwrap()
            .contains(&served.display().to_string())
    );

    // The tools, each with an object input schema; the edit tool's verbs are the CLI's.
    let tools = out["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, fbc_mcp::TOOLS);
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(
            !t["description"].as_str().unwrap_or_default().is_empty(),
            "{t}"
        );
    }
    let edit = tools.iter().find(|t| t["name"] == "edit").unwrap();
    let props = &edit["inputSchema"]["properties"];
    for arg in [
        "path", "edit", "package", "channel", "bundle", "entry", "skips", "range", "dry_run",
        "force",
    ] {
        assert!(
            props.get(arg).is_some(),
            "edit has no argument {arg}: {props}"
        );
    }
    let required: Vec<&str> = edit["inputSchema"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, ["path", "edit"]);
    let schema = edit["inputSchema"].to_string();
    for verb in fbc_mcp::args::verb_names() {
        assert!(
            schema.contains(&format!("\"{verb}\"")),
            "{verb} missing from {schema}"
        );
    }

    let calls = out["calls"].as_array().unwrap();
    // A broken catalog: the problem with its code, file, line and hint.
    let v = &calls[0];
    assert_eq!(v["isError"], false, "{v}");
    let r = &v["structuredContent"];
    assert_eq!(r["valid"], false);
    let p = r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == fbc_core::validate::codes::DEFAULT_CHANNEL_MISSING)
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(p["severity"], "error");
    assert_eq!(p["file"], "broken/catalog.yaml");
    assert_eq!(p["line"], 3);
    assert!(p["message"].as_str().unwrap().contains("stabel"), "{p}");

    // The dry run: the diff, nothing written.
    let dry = &calls[1];
    assert_eq!(dry["isError"], false, "{dry}");
    let diff = dry["structuredContent"]["diff"].as_str().unwrap();
    assert!(diff.contains("+  - name: cache-operator.v1.4.0"), "{diff}");
    assert_eq!(dry["structuredContent"]["written"], json!([]));

    // Applied: the files are what `fbc-edit edit` writes, byte for byte.
    let applied = &calls[2];
    assert_eq!(applied["isError"], false, "{applied}");
    assert_eq!(
        applied["structuredContent"]["diff"],
        dry["structuredContent"]["diff"]
    );
    assert_eq!(
        applied["structuredContent"]["written"],
        json!(["demo/cache-operator/catalog.yaml"])
    );
    assert_cmd::Command::new(bin())
        .args(["edit"])
        .arg(&by_cli)
        .args([
            "promote",
            "--package",
            "cache-operator",
            "--bundle",
            "cache-operator.v1.4.0",
            "--channel",
            "stable",
            "--skip-range",
            ">=1.0.0 <1.4.0",
        ])
        .assert()
        .success();
    let after = tree(&served.join("demo"));
    assert_ne!(after, before);
    assert_eq!(after, tree(&by_cli));

    // Refusals are tool errors with the command line's reason.
    let refused = &calls[3];
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused["text"][0].as_str().unwrap();
    assert!(text.starts_with("cannot promote"), "{text}");
    assert!(text.contains("cache-operator.v9.9.9"), "{text}");
    let outside = &calls[4];
    assert_eq!(outside["isError"], true, "{outside}");
    assert!(
        outside["text"][0]
            .as_str()
            .unwrap()
            .contains("is outside the directories this server reads"),
        "{outside}"
    );
    // The catalog as the edit left it.
    let listed = &calls[5]["structuredContent"];
    let stable = listed["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "stable")
        .unwrap();
    assert_eq!(stable["head"], "cache-operator.v1.4.0", "{listed}");
    // A dry run that would break the catalog returns the problems it would add.
    let breaking = &calls[6];
    assert_eq!(breaking["isError"], false, "{breaking}");
    assert_eq!(tree(&served.join("demo")), after);
    // An argument the verb does not take is refused, not dropped.
    let extra = &calls[7];
    assert_eq!(extra["isError"], true, "{extra}");
    assert!(
        extra["text"][0]
            .as_str()
            .unwrap()
            .contains("takes no bundle"),
        "{extra}"
    );
}

#[test]
fn an_edit_that_would_leave_the_catalog_invalid_is_refused_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    copy_of("assets/demo-catalog", &root.join("demo"));
    let before = tree(&root.join("demo"));
    // Deleting the channel that holds the only copy of a bundle strands it (FBC028).
    let delete = |extra: Value| {
        let mut args = json!({"path": ".", "edit": "delete-channel",
            "package": "cache-operator", "channel": "candidate"});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"name": "edit", "arguments": args})
    };
    let out = session(
        &root,
        &[&root.join("demo")],
        json!([
            delete(json!({"dry_run": true})),
            delete(json!({})),
            delete(json!({"force": true})),
        ]),
    );
    let calls = out["calls"].as_array().unwrap();
    let codes = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|p| p["code"].as_str().unwrap().to_string())
            .collect()
    };
    // The dry run says what it would add, and writes nothing.
    let dry = &calls[0];
    assert_eq!(dry["isError"], false, "{dry}");
    assert!(
        codes(&dry["structuredContent"]["introduced"]).contains(&"FBC028".to_string()),
        "{dry}"
    );
    // Without force: a tool error with the reason and the problems; nothing written.
    let refused = &calls[1];
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused["text"][0].as_str().unwrap();
    assert!(
        text.contains("would leave the catalog invalid; nothing was written"),
        "{text}"
    );
    assert!(
        codes(&refused["structuredContent"]["problems"]).contains(&"FBC028".to_string()),
        "{refused}"
    );
    // With force it is written (the paths relative to the one root served: the catalog).
    let forced = &calls[2];
    assert_eq!(forced["isError"], false, "{forced}");
    assert_eq!(
        forced["structuredContent"]["written"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "{forced}"
    );
    assert_ne!(tree(&root.join("demo")), before);
}

#[test]
fn the_edit_verbs_are_the_command_lines() {
    let cli = fbc_edit::cli::Cli::command();
    let edit = cli.find_subcommand("edit").unwrap();
    let cli_verbs: Vec<String> = edit
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    assert_eq!(cli_verbs, fbc_mcp::args::verb_names());
}

const RABBIT: &str = "operators/rabbitmq-messaging-topology-operator";
const RABBIT_IMAGE: &str =
    "quay.io/community-operator-pipeline-prod/rabbitmq-messaging-topology-operator:1.19.3";

/// A copy of testdata/release at `to` with release 1.19.3 taken out of the operator's templates,
/// as it stood before the pipeline released it.
fn unreleased(to: &Path) {
    copy_of("testdata/release", to);
    let templates = to.join(RABBIT).join("catalog-templates");
    for e in std::fs::read_dir(&templates).unwrap() {
        let file = e.unwrap().path();
        let mut text = std::fs::read_to_string(&file).unwrap();
        for lines in [
            "  - name: rabbitmq-messaging-topology-operator.v1.19.3\n    replaces: rabbitmq-messaging-topology-operator.v1.19.2\n".to_string(),
            format!("- schema: olm.bundle\n  image: \n    {RABBIT_IMAGE}\n"),
        ] {
            assert!(text.contains(&lines), "{} lacks {lines:?}", file.display());
            text = text.replacen(&lines, "", 1);
        }
        std::fs::write(&file, text).unwrap();
    }
}

fn release(extra: Value) -> Value {
    let mut args = json!({"path": format!("repo/{RABBIT}"), "edit": "release",
        "from": format!("repo/{RABBIT}/1.19.3"), "image": RABBIT_IMAGE});
    args.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    json!({"name": "edit", "arguments": args})
}

#[test]
fn a_release_through_the_server_writes_what_the_command_line_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let served = base.join("served");
    unreleased(&served.join("repo"));
    // A bundle directory whose release-config.yaml names a template ci.yaml does not map.
    let bad = served.join("unmapped");
    copy_dir(&served.join("repo").join(RABBIT).join("1.19.3"), &bad);
    std::fs::write(
        bad.join("release-config.yaml"),
        "catalog_templates:\n- template_name: 4.17.yaml\n  channels: [stable]\n",
    )
    .unwrap();
    let by_cli = base.join("by-cli");
    unreleased(&by_cli);
    let before = tree(&served.join("repo"));
    let out = session(
        &served,
        &[],
        json!([
            release(json!({"dry_run": true})),
            release(json!({"from": "unmapped"})),
            release(json!({"channel": "stable"})),
            release(json!({})),
        ]),
    );
    let calls = out["calls"].as_array().unwrap();

    // The dry run: the templates' diff, the catalogs it would re-render, nothing written.
    let dry = &calls[0];
    assert_eq!(dry["isError"], false, "{dry}");
    let r = &dry["structuredContent"];
    assert_eq!(
        r["edit"],
        format!("release rabbitmq-messaging-topology-operator.v1.19.3 ({RABBIT_IMAGE})")
    );
    assert_eq!(r["written"], json!([]));
    let diff = r["diff"].as_str().unwrap();
    assert!(
        diff.contains(&format!(
            "+++ b/repo/{RABBIT}/catalog-templates/v4.20.yaml\n"
        )) && diff.contains("+  - name: rabbitmq-messaging-topology-operator.v1.19.3\n"),
        "{diff}"
    );
    let added = diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .count();
    assert_eq!(added, 5 * 5, "{diff}");
    assert!(
        r["rerendered"].as_array().unwrap().contains(&json!(
            "repo/catalogs/v4.20/rabbitmq-messaging-topology-operator/catalog.yaml"
        )),
        "{r}"
    );
    // What opm's rules find in the catalogs, each named by its file: notes, no error.
    let problems = r["problems"].as_array().unwrap();
    assert!(problems.iter().all(|p| p["severity"] != "error"), "{r}");
    assert!(
        problems.iter().any(|p| p["code"] == "FBC103"
            && p["file"]
                == "repo/catalogs/v4.17/rabbitmq-messaging-topology-operator/catalog.yaml"),
        "{r}"
    );

    // Refusals: the pipeline's reason, and an argument release does not take; nothing written.
    let unmapped = &calls[1];
    assert_eq!(unmapped["isError"], true, "{unmapped}");
    let text = unmapped["text"][0].as_str().unwrap();
    assert!(text.starts_with("nothing written: "), "{text}");
    assert!(
        text.contains("Template mapping not found for '4.17.yaml' in ci.yaml."),
        "{text}"
    );
    let stray = &calls[2];
    assert_eq!(stray["isError"], true, "{stray}");
    assert!(
        stray["text"][0]
            .as_str()
            .unwrap()
            .starts_with("release takes no channel (it takes: from, image)"),
        "{stray}"
    );

    // Applied: every file as `fbc-edit edit OPERATOR_DIR release` writes it, byte for byte.
    let applied = &calls[3];
    assert_eq!(applied["isError"], false, "{applied}");
    assert_eq!(applied["structuredContent"]["diff"], r["diff"]);
    let written = applied["structuredContent"]["written"].as_array().unwrap();
    assert!(
        written.contains(&json!(format!(
            "repo/{RABBIT}/catalog-templates/v4.17.yaml"
        ))) && written.contains(&json!(
            "repo/catalogs/v4.17/rabbitmq-messaging-topology-operator/catalog.yaml"
        )),
        "{written:?}"
    );
    assert_cmd::Command::new(bin())
        .current_dir(&by_cli)
        .args(["edit", RABBIT, "release", "--from"])
        .arg(format!("{RABBIT}/1.19.3"))
        .args(["--image", RABBIT_IMAGE])
        .assert()
        .success();
    let after = tree(&served.join("repo"));
    assert_ne!(after, before);
    assert_eq!(after, tree(&by_cli));
}

#[test]
fn every_tool_declares_its_output_and_answers_in_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    copy_of("assets/demo-catalog", &root.join("demo"));
    copy_of("assets/demo-catalog", &root.join("demo-old"));
    copy_of("testdata/release", &root.join("repo"));
    copy_of("testdata/diff/lifecycle", &root.join("lifecycle"));
    let template = format!("repo/{RABBIT}/catalog-templates/v4.20.yaml");
    let calls = json!([
        {"name": "list", "arguments": {"path": "demo"}},
        {"name": "list", "arguments": {"path": "demo", "package": "cache-operator"}},
        {"name": "list", "arguments": {"path": "demo", "package": "cache-operator",
            "channel": "stable"}},
        {"name": "upgrade_path", "arguments": {"path": "demo", "package": "cache-operator",
            "channel": "stable", "from": "1.1.0"}},
        {"name": "upgrade_path", "arguments": {"path": "demo", "package": "cache-operator",
            "channel": "stable", "from": "1.1.0", "olm": "v1"}},
        {"name": "upgrade_path", "arguments": {"path": "demo", "package": "cache-operator",
            "from": "1.1.0", "olm": "v1"}},
        {"name": "validate", "arguments": {"path": "demo", "profile": "community", "ocp": "4.18"}},
        {"name": "edit", "arguments": {"path": "demo", "edit": "promote",
            "package": "cache-operator", "bundle": "cache-operator.v1.4.0", "channel": "stable"}},
        {"name": "diff", "arguments": {"old": "demo-old", "new": "demo"}},
        {"name": "diff", "arguments": {"old": "lifecycle/old", "new": "lifecycle/new"}},
        {"name": "render", "arguments": {"path": template}},
        {"name": "edit", "arguments": {"path": template, "edit": "add-skips",
            "package": "rabbitmq-messaging-topology-operator", "channel": "stable",
            "entry": "rabbitmq-messaging-topology-operator.v1.19.3",
            "skips": ["rabbitmq-messaging-topology-operator.v1.0.0"], "dry_run": true}},
        {"name": "repo_check", "arguments": {"path": "repo"}},
    ]);
    let names: Vec<String> = calls
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    let out = session(&root, &[], calls);
    for t in out["tools"].as_array().unwrap() {
        let schema = &t["outputSchema"];
        assert_eq!(schema["type"], "object", "{t}");
        assert!(
            names.iter().any(|n| *n == t["name"]),
            "{} is not called",
            t["name"]
        );
    }
    // Each result passed the SDK's own check against the declared schema (a mismatch raises in
    // the client), and the SDK refuses it with its values replaced.
    for (name, call) in names.iter().zip(out["calls"].as_array().unwrap()) {
        assert_eq!(call["isError"], false, "{name}: {call}");
        assert!(call["structuredContent"].is_object(), "{name}: {call}");
        assert_eq!(call["tamperedRefused"], true, "{name}: {call}");
        // The text is the same JSON, for clients that read no structured content.
        let text: Value = serde_json::from_str(call["text"][0].as_str().unwrap()).unwrap();
        assert_eq!(text, call["structuredContent"], "{name}");
    }
    let diff = &out["calls"][8]["structuredContent"];
    assert_eq!(diff["changed"], true, "{diff}");
    assert_eq!(diff["changes"]["packages"][0]["name"], "cache-operator");
    // A lifecycle's versions added and removed are structured, and held to the schema too.
    let lifecycle = &out["calls"][9]["structuredContent"]["changes"];
    let text = lifecycle.to_string();
    assert!(text.contains("\"versions_added\""), "{lifecycle}");
}
