//! The server's code actions on templates and its quick fixes, against what `fbc-edit edit`
//! writes: the same file, byte for byte; an edit the command refuses is offered greyed out with
//! the command's reason.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

#[path = "../../../crates/fbc-lsp/tests/support.rs"]
mod support;

use crate::common::copy_dir;
use support::{Client, apply, uri};

const PULSE: &str = "operators/clusterpulse/catalog-templates/semver.yaml";
const RABBIT: &str = "operators/rabbitmq-messaging-topology-operator/catalog-templates/v4.20.yaml";
const PULSE_1_0_1: &str = "quay.io/community-operator-pipeline-prod/clusterpulse:1.0.1";

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Two copies of a repository of testdata: one for the server, one for the command.
fn copies(rel: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    copy_dir(&local(rel), &a);
    copy_dir(&local(rel), &b);
    (tmp, a, b)
}

/// testdata/release (a basic template whose images its catalogs hold).
fn repos() -> (tempfile::TempDir, PathBuf, PathBuf) {
    copies("testdata/release")
}

/// A slice of community-operators-prod (a semver template whose images its catalogs hold).
fn community() -> (tempfile::TempDir, PathBuf, PathBuf) {
    copies("testdata/opm-versions/community-operators-prod")
}

/// The actions the server offers with the cursor on the first line holding `at`.
fn actions_at(c: &mut Client, file: &Path, text: &str, at: &str) -> Vec<Value> {
    let line = text[..text.find(at).expect("the text to point at")]
        .matches('\n')
        .count();
    let p = json!({"line": line, "character": 4});
    let got = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(file).as_str()}, "range": {"start": p, "end": p}, "context": {"diagnostics": []}}),
    );
    got.as_array().cloned().unwrap_or_default()
}

fn titled<'a>(actions: &'a [Value], title: &str) -> &'a Value {
    actions
        .iter()
        .find(|a| a["title"] == title)
        .unwrap_or_else(|| {
            let titles: Vec<&Value> = actions.iter().map(|a| &a["title"]).collect();
            panic!("no {title:?} among {titles:?}")
        })
}

/// `fbc-edit edit FILE --no-render ARGS…`: its exit status, the file after it, and what it said.
fn command(file: &Path, args: &[&str]) -> (bool, String, String) {
    let out = assert_cmd::Command::cargo_bin("fbc-edit")
        .unwrap()
        .env_remove("FBC_EDIT_FAULT")
        .arg("edit")
        .arg(file)
        .arg("--no-render")
        .args(args)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.success(),
        std::fs::read_to_string(file).unwrap(),
        said,
    )
}

/// The action's edit applied to `text` equals what the command writes.
fn same_as_command(action: &Value, file: &Path, text: &str, other: &Path, args: &[&str]) {
    assert!(action["disabled"].is_null(), "{action}");
    let got = apply(text, &action["edit"], &uri(file));
    let (ok, want, said) = command(other, args);
    assert!(ok, "{said}");
    assert_ne!(got, text);
    assert_eq!(got, want, "{said}");
}

#[test]
fn semver_template_actions_write_what_the_command_writes() {
    let (_tmp, a, b) = community();
    let file = a.join(PULSE);
    let text = std::fs::read_to_string(&file).unwrap();
    let mut c = Client::start(&a, Value::Null);
    c.open(&file, &text);
    c.diagnostics(&uri(&file));
    let actions = actions_at(&mut c, &file, &text, &format!("Image: {PULSE_1_0_1}\n"));
    same_as_command(
        titled(&actions, &format!("Move {PULSE_1_0_1} to Stable")),
        &file,
        &text,
        &b.join(PULSE),
        &["move-image", "--image", PULSE_1_0_1, "--channel", "Stable"],
    );
    let (_tmp2, _, b2) = community();
    same_as_command(
        titled(&actions, &format!("Remove {PULSE_1_0_1}")),
        &file,
        &text,
        &b2.join(PULSE),
        &["remove-image", "--image", PULSE_1_0_1],
    );
    // Off an image, no image actions.
    let elsewhere = actions_at(&mut c, &file, &text, "Schema: olm.semver");
    assert!(elsewhere.is_empty(), "{elsewhere:?}");
    let flags = actions_at(&mut c, &file, &text, "GenerateMinorChannels");
    let (_tmp3, _, b3) = community();
    same_as_command(
        titled(&flags, "Generate minor-version channels"),
        &file,
        &text,
        &b3.join(PULSE),
        &["set-generate", "--minor", "true"],
    );
    c.shutdown();
}

/// A preference the flags do not allow is offered disabled, with the reason the command gives.
#[test]
fn a_refused_template_edit_is_greyed_out_with_the_commands_reason() {
    let (_tmp, a, b) = community();
    let file = a.join(PULSE);
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "GenerateMinorChannels: false\n",
        "GenerateMinorChannels: false\nDefaultChannelTypePreference: major\n",
    );
    std::fs::write(&file, &text).unwrap();
    std::fs::write(b.join(PULSE), &text).unwrap();
    let mut c = Client::start(&a, Value::Null);
    c.open(&file, &text);
    c.diagnostics(&uri(&file));
    let actions = actions_at(&mut c, &file, &text, "DefaultChannelTypePreference");
    let minor = titled(&actions, "Prefer minor-version channels as the default");
    let reason = minor["disabled"]["reason"].as_str().expect("disabled");
    let (ok, after, said) = command(&b.join(PULSE), &["set-channel-preference", "minor"]);
    assert!(!ok);
    assert_eq!(after, text);
    let reason = reason.replace(&a.display().to_string(), &b.display().to_string());
    assert!(said.contains(&reason), "{reason:?} not in {said}");
    c.shutdown();
}

#[test]
fn basic_template_actions_write_what_the_command_writes() {
    let (_tmp, a, b) = repos();
    let file = a.join(RABBIT);
    let text = std::fs::read_to_string(&file).unwrap();
    let mut c = Client::start(&a, Value::Null);
    c.open(&file, &text);
    c.diagnostics(&uri(&file));
    let entry = "rabbitmq-messaging-topology-operator.v1.19.3";
    let actions = actions_at(&mut c, &file, &text, &format!("- name: {entry}\n"));
    same_as_command(
        titled(&actions, &format!("Deprecate bundle {entry}")),
        &file,
        &text,
        &b.join(RABBIT),
        &[
            "deprecate",
            "-p",
            "rabbitmq-messaging-topology-operator",
            "--bundle",
            entry,
            "-m",
            &format!("{entry} is deprecated"),
        ],
    );
    // Removing the entry would leave its bundle in no channel: the command refuses it without
    // --force, and says why; the action is greyed out with the same words.
    let remove = titled(&actions, &format!("Remove {entry} from stable"));
    let reason = remove["disabled"]["reason"].as_str().expect("disabled");
    let (what, why) = reason
        .split_once(" would leave a rendering invalid: ")
        .unwrap_or_else(|| panic!("{reason}"));
    let (_tmp2, _, b2) = repos();
    let (ok, after, said) = command(
        &b2.join(RABBIT),
        &[
            "remove-entry",
            "-p",
            "rabbitmq-messaging-topology-operator",
            "-c",
            "stable",
            "-e",
            entry,
        ],
    );
    assert!(!ok, "{said}");
    assert_eq!(after, text);
    assert!(
        said.contains(&format!("{what} would leave a rendering invalid")) && said.contains(why),
        "{reason:?} against {said}"
    );
    // On the channel's name: make it the default, which it already is: refused as the command
    // refuses it.
    let on_channel = actions_at(&mut c, &file, &text, "  name: stable\n");
    let default = titled(&on_channel, "Make stable the default channel");
    let reason = default["disabled"]["reason"].as_str().expect("disabled");
    let (_tmp3, _, b3) = repos();
    let (ok, _, said) = command(
        &b3.join(RABBIT),
        &[
            "set-default-channel",
            "-p",
            "rabbitmq-messaging-topology-operator",
            "-c",
            "stable",
        ],
    );
    assert!(!ok, "{said}");
    assert!(said.contains(reason), "{reason:?} not in {said}");
    c.shutdown();
}

#[test]
fn a_substitution_is_dropped_as_the_command_drops_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    // The file read as text (its leading comments kept): a substitutes template.
    let text =
        std::fs::read_to_string(local("testdata/substitutes/cases/render-single.yaml")).unwrap();
    std::fs::write(a.join("subs.yaml"), &text).unwrap();
    std::fs::write(b.join("subs.yaml"), &text).unwrap();
    let file = a.join("subs.yaml");
    let mut c = Client::start(&a, Value::Null);
    c.open(&file, &text);
    c.diagnostics(&uri(&file));
    let actions = actions_at(&mut c, &file, &text, "  base: \"testoperator.v1.1.0\"");
    same_as_command(
        titled(&actions, "Drop the substitution of testoperator.v1.1.0"),
        &file,
        &text,
        &b.join("subs.yaml"),
        &["unsubstitute", "--base", "testoperator.v1.1.0"],
    );
    c.shutdown();
}

/// The rendering's problems that a template change mends get that change as a quick fix.
#[test]
fn template_quick_fixes_mend_the_rendering() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("basic.yaml");
    let text = "schema: olm.template.basic\nentries:\n  - schema: olm.package\n    name: demo\n    defaultChannel: nowhere\n  - schema: olm.channel\n    package: demo\n    name: stable\n    entries: []\n  - schema: olm.channel\n    package: demo\n    name: fast\n    entries: []\n";
    std::fs::write(&t, text).unwrap();
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&t, text);
    let diags = c.diagnostics(&uri(&t));
    let d = diags
        .iter()
        .find(|d| d["code"] == "FBC031")
        .unwrap_or_else(|| panic!("{diags:?}"))
        .clone();
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&t).as_str()}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let fix = titled(
        actions.as_array().unwrap(),
        "Make stable the default channel",
    );
    assert_eq!(fix["kind"], "quickfix");
    let fixed = apply(text, &fix["edit"], &uri(&t));
    assert_eq!(
        fixed,
        text.replace("defaultChannel: nowhere", "defaultChannel: stable")
    );
    let (ok, want, said) = command(&t, &["set-default-channel", "-p", "demo", "-c", "stable"]);
    assert!(ok, "{said}");
    assert_eq!(fixed, want);
    c.shutdown();
}

/// A catalog's quick fix writes what `fbc-edit edit` writes: a second head made skipped by the
/// newest one.
#[test]
fn a_catalog_quick_fix_is_the_commands_edit() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("catalogs/v4.18");
    copy_dir(&crate::common::demo(), &root);
    let other = tempfile::tempdir().unwrap();
    copy_dir(&crate::common::demo(), other.path());
    let file = root.join("cache-operator/catalog.yaml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "  - name: cache-operator.v1.5.0-rc.1\n    replaces: cache-operator.v1.4.0\n",
        "  - name: cache-operator.v1.5.0-rc.1\n",
    );
    std::fs::write(&file, &text).unwrap();
    std::fs::write(other.path().join("cache-operator/catalog.yaml"), &text).unwrap();
    let mut c = Client::start(tmp.path(), Value::Null);
    c.open(&file, &text);
    let diags = c.diagnostics(&uri(&file));
    let d = diags
        .iter()
        .find(|d| d["code"] == "FBC045")
        .unwrap_or_else(|| panic!("{diags:?}"))
        .clone();
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&file).as_str()}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let fix = titled(
        actions.as_array().unwrap(),
        "Make cache-operator.v1.5.0-rc.1 skip cache-operator.v1.4.0",
    );
    let fixed = apply(&text, &fix["edit"], &uri(&file));
    let out = assert_cmd::Command::cargo_bin("fbc-edit")
        .unwrap()
        .arg("edit")
        .arg(other.path())
        .args([
            "add-skips",
            "-p",
            "cache-operator",
            "-c",
            "candidate",
            "-e",
            "cache-operator.v1.5.0-rc.1",
            "--skips",
            "cache-operator.v1.4.0",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        fixed,
        std::fs::read_to_string(other.path().join("cache-operator/catalog.yaml")).unwrap()
    );
    c.shutdown();
}
