//! Relinking around a removed entry hands over everything it linked: the entries that replaced it
//! take over its `replaces`, and the entries that replaced or skipped it its skips and (having none)
//! its skipRange, so nothing it kept reachable strands or becomes a second head. The same in
//! `remove-entry` and `remove-bundle --relink`, in catalogs and in templates. The case is certified
//! v4.18's cloud-native-postgresql, whose v1.25.5 skips v1.25.0 to v1.25.4 and replaces nothing.

use crate::common;

use std::path::PathBuf;

use assert_cmd::Command;
use fbc_core::catalog::model::Channel;
use fbc_core::catalog::{Catalog, Severity, load};
use fbc_core::edit::Edit;
use fbc_core::validate;

const PKG: &str = "cloud-native-postgresql";
const V1_25_5: &str = "cloud-native-postgresql.v1.25.5";
const V1_25_6: &str = "cloud-native-postgresql.v1.25.6";

fn cnpg() -> PathBuf {
    common::real(
        "redhat-openshift-ecosystem__certified-operators__catalogs-v4.18-cloud-native-postgresql",
    )
}

fn copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&cnpg(), tmp.path());
    tmp
}

fn errors(c: &Catalog) -> Vec<String> {
    validate::validate(c)
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

/// An entry of a channel as `replaces|skips|skipRange`.
fn entry(c: &Catalog, channel: &str, name: &str) -> String {
    let id = c.index().channel(PKG, channel).unwrap();
    let ch = Channel::read(&c.blob(id).value).unwrap();
    let e = ch.entry(name).unwrap();
    format!(
        "{}|{}|{}",
        e.replaces.unwrap_or(""),
        e.skips
            .iter()
            .map(|s| s.trim_start_matches("cloud-native-postgresql."))
            .collect::<Vec<_>>()
            .join(","),
        e.skip_range.unwrap_or("")
    )
}

/// v1.25.6 once v1.25.5 is gone from stable-v1.25: what it skipped and its skipRange.
const TAKEN_OVER: &str = "|v1.25.0,v1.25.1,v1.25.2,v1.25.3,v1.25.4|>= 1.18.0 < 1.25.5";

#[test]
fn the_catalog_is_valid_and_v1_25_5_is_as_described() {
    let c = load(&cnpg()).unwrap();
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
    assert_eq!(
        entry(&c, "stable-v1.25", V1_25_5),
        "|v1.25.0,v1.25.1,v1.25.2,v1.25.3,v1.25.4|>= 1.18.0 < 1.25.5"
    );
    assert_eq!(entry(&c, "stable-v1.25", V1_25_6), format!("{V1_25_5}||"));
}

#[test]
fn remove_bundle_relinked_hands_over_skips_and_skip_range() {
    let mut c = load(&cnpg()).unwrap();
    Edit::RemoveBundle {
        package: PKG.into(),
        bundle: V1_25_5.into(),
        relink: true,
    }
    .apply(&mut c)
    .unwrap();
    assert_eq!(entry(&c, "stable-v1.25", V1_25_6), TAKEN_OVER);
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
}

#[test]
fn remove_entry_hands_over_skips_and_skip_range() {
    let mut c = load(&cnpg()).unwrap();
    Edit::RemoveEntry {
        package: PKG.into(),
        channel: "stable-v1.25".into(),
        entry: V1_25_5.into(),
    }
    .apply(&mut c)
    .unwrap();
    assert_eq!(entry(&c, "stable-v1.25", V1_25_6), TAKEN_OVER);
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
}

/// An entry that skipped the removed one (and did not replace it) takes over its skips too; what it
/// skips already is not written twice, and its own skipRange stays.
#[test]
fn an_entry_that_skipped_it_takes_over_its_skips_once() {
    let mut c = load(&cnpg()).unwrap();
    let before = entry(&c, "stable", "cloud-native-postgresql.v1.28.0");
    assert!(before.contains("v1.25.4,v1.25.5"), "{before}");
    Edit::RemoveBundle {
        package: PKG.into(),
        bundle: V1_25_5.into(),
        relink: true,
    }
    .apply(&mut c)
    .unwrap();
    assert_eq!(
        entry(&c, "stable", "cloud-native-postgresql.v1.28.0"),
        before.replace(",v1.25.5", "")
    );
}

fn fbc_edit() -> Command {
    let mut c = Command::cargo_bin("fbc-edit").unwrap();
    c.env_remove("FBC_EDIT_FAULT");
    c
}

#[test]
fn cli_remove_bundle_relink_is_written_and_the_refusal_names_the_flag() {
    let tmp = copy();
    let args = ["edit", ".", "remove-bundle", "-p", PKG, "-b", V1_25_5];
    // v1.25.6 replaces it: refused, naming the flag that makes it possible.
    let out = fbc_edit()
        .current_dir(tmp.path())
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{V1_25_6} in channel stable-v1.25 replaces {V1_25_5}"
        )) && stderr.contains("hint: --relink hands them its replaces and its skips"),
        "{stderr}"
    );
    let out = fbc_edit()
        .current_dir(tmp.path())
        .args(args)
        .arg("--relink")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("+  skipRange: '>= 1.18.0 < 1.25.5'\n"),
        "{stdout}"
    );
    let c = load(tmp.path()).unwrap();
    assert!(c.index().bundle(PKG, V1_25_5).is_none());
    assert_eq!(entry(&c, "stable-v1.25", V1_25_6), TAKEN_OVER);
    assert!(errors(&c).is_empty(), "{:#?}", errors(&c));
}

/// The same removal in a basic template: the template's channel entry takes over, and the
/// rendering stays valid.
#[test]
fn cli_remove_bundle_relink_in_a_template() {
    let tmp = tempfile::tempdir().unwrap();
    let template = tmp.path().join("basic.yaml");
    let out = fbc_edit()
        .args(["template", "from-catalog"])
        .arg(cnpg())
        .args(["-p", PKG])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    std::fs::write(&template, &out.stdout).unwrap();
    let out = fbc_edit()
        .current_dir(tmp.path())
        .args(["edit", "basic.yaml", "--catalog"])
        .arg(cnpg())
        .args(["remove-bundle", "-p", PKG, "-b", V1_25_5, "--relink"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{stdout}");
    assert!(!stdout.contains("leaves the rendering invalid"), "{stdout}");
    let text = std::fs::read_to_string(&template).unwrap();
    let at = text.find(&format!("- name: {V1_25_6}\n")).unwrap();
    let next = text[at..]
        .find("  - name: cloud-native-postgresql.v1.25.7")
        .unwrap();
    assert_eq!(
        &text[at..at + next],
        format!(
            "- name: {V1_25_6}\n    skips:\n{}    skipRange: '>= 1.18.0 < 1.25.5'\n",
            (0..5)
                .map(|i| format!("    - cloud-native-postgresql.v1.25.{i}\n"))
                .collect::<String>()
        )
    );
    assert!(!text.contains(&format!("name: {V1_25_5}")), "{text}");
}
