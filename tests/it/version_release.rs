//! Bundle releases as opm reads and orders them: opm's own cases (testdata/release-order, from
//! operator-registry's tests) give opm's answers, and every face orders and shows version and
//! release the same way.

use std::path::PathBuf;

use assert_cmd::Command;
use fbc_core::catalog::load;
use fbc_core::catalog::model::Bundle;
use fbc_core::catalog::semver_range::parse_release;
use fbc_core::catalog::version_release::{VersionRelease, uses_legacy_release};
use serde_json::Value;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/release-order")
}

/// opm's `TestBundle_usesLegacyReleaseVersion`, `…_LegacyReleaseInference` and
/// `…_BuildMetadataConversion`, as a catalog and its expected answers.
#[test]
fn opm_s_legacy_release_cases_give_opm_s_answers() {
    let cat = load(&data().join("legacy")).unwrap();
    let expected: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(data().join("legacy-expected.json")).unwrap(),
    )
    .unwrap();
    assert!(expected.len() >= 15);
    for e in &expected {
        let name = e["bundle"].as_str().unwrap();
        let id = cat.index().bundle("messaging-server", name).unwrap();
        let b = Bundle::read(&cat.blob(id).value).unwrap();
        let legacy = uses_legacy_release(&cat, &b);
        assert_eq!(legacy, e["legacy"].as_bool().unwrap(), "{name}");
        let got = VersionRelease::of_bundle(&b).unwrap().legacy(legacy);
        match e.get("error") {
            Some(msg) => assert_eq!(
                got.unwrap_err().to_string(),
                msg.as_str().unwrap(),
                "{name}"
            ),
            None => {
                let vr = got.unwrap();
                assert_eq!(
                    vr.version.to_string(),
                    e["version"].as_str().unwrap(),
                    "{name}"
                );
                assert_eq!(vr.release_text(), e["release"].as_str().unwrap(), "{name}");
            }
        }
    }
}

/// opm's `TestNewRelease`.
#[test]
fn opm_s_release_parsing_cases() {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(data().join("releases.json")).unwrap())
            .unwrap();
    for c in &cases {
        let text = c["release"].as_str().unwrap();
        match (parse_release(text), c.get("error")) {
            (Ok(r), None) => {
                let got: Vec<String> = r.iter().map(ToString::to_string).collect();
                let want: Vec<&str> = c["segments"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_str().unwrap())
                    .collect();
                assert_eq!(got, want, "{text}");
            }
            (Err(e), Some(msg)) => {
                assert!(e.to_string().contains(msg.as_str().unwrap()), "{text}: {e}")
            }
            (got, want) => panic!("{text}: got {got:?}, expected {want:?}"),
        }
    }
}

fn fbc_edit(args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .current_dir(data())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn list_shows_each_entry_s_release() {
    let (code, out, err) = fbc_edit(&["list", "order", "demo-rel", "stable"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "ENTRY               VERSION  RELEASE  REPLACES            SKIPS  SKIPRANGE\n\
         demo-rel.v1.0.1     1.0.1    -        demo-rel-v1.0.0-10  -      -\n\
         demo-rel-v1.0.0-10  1.0.0    10       demo-rel-v1.0.0-2   -      -\n\
         demo-rel.v1.0.0     1.0.0    -        -                   -      -\n\
         demo-rel-v1.0.0-2   1.0.0    2        demo-rel-v1.0.0-1   -      -\n\
         demo-rel-v1.0.0-1   1.0.0    1        demo-rel.v1.0.0     -      -\n"
    );
    let (_, json, _) = fbc_edit(&["list", "order", "demo-rel", "stable", "-o", "json"]);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["entries"][1]["release"], "10");
    assert_eq!(v["entries"][0]["release"], Value::Null);
}

/// OLM v1 takes the highest version and release: release 10 after 2 (numerically), a release
/// after none, and a re-spin of the head after the head.
#[test]
fn path_under_olm_v1_climbs_releases_in_opm_s_order() {
    let (code, out, err) = fbc_edit(&[
        "path",
        "order",
        "-p",
        "demo-rel",
        "--from",
        "demo-rel.v1.0.0",
        "--olm",
        "v1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "OLM v1 (every channel of demo-rel): demo-rel.v1.0.0 → demo-rel-v1.0.1-1: 5 upgrades\n\
        \x20 demo-rel.v1.0.0 → demo-rel-v1.0.0-1  highest successor 1.0.0 release 1, via replaces (stable)\n\
        \x20 demo-rel-v1.0.0-1 → demo-rel-v1.0.0-2  highest successor 1.0.0 release 2, via replaces (stable)\n\
        \x20 demo-rel-v1.0.0-2 → demo-rel-v1.0.0-10  highest successor 1.0.0 release 10, via replaces (stable)\n\
        \x20 demo-rel-v1.0.0-10 → demo-rel.v1.0.1  highest successor 1.0.1, via replaces (stable)\n\
        \x20 demo-rel.v1.0.1 → demo-rel-v1.0.1-1  highest successor 1.0.1 release 1, via replaces (fast)\n"
    );
    let (_, json, _) = fbc_edit(&[
        "path",
        "order",
        "-p",
        "demo-rel",
        "--from",
        "demo-rel.v1.0.0",
        "--olm",
        "v1",
        "-o",
        "json",
    ]);
    let v: Value = serde_json::from_str(&json).unwrap();
    let hop = &v["path"][2];
    assert_eq!(
        (hop["version"].as_str(), hop["release"].as_str()),
        (Some("1.0.0"), Some("10"))
    );
}

/// A re-spin with the head's version and a release is newer than the head; an older release is
/// not, and the refusal says version and release.
#[test]
fn promote_takes_a_higher_release_of_the_head_s_version() {
    let tmp = tempfile::tempdir().unwrap();
    crate::common::copy_dir(&data().join("order"), tmp.path());
    let dir = tmp.path().to_str().unwrap();
    let (code, out, err) = fbc_edit(&[
        "edit",
        dir,
        "promote",
        "-p",
        "demo-rel",
        "-b",
        "demo-rel-v1.0.1-1",
        "-c",
        "stable",
        "--dry-run",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("+- name: demo-rel-v1.0.1-1\n+  replaces: demo-rel.v1.0.1\n"),
        "{out}"
    );
    let (code, _, err) = fbc_edit(&[
        "edit",
        dir,
        "promote",
        "-p",
        "demo-rel",
        "-b",
        "demo-rel-v1.0.0-2",
        "-c",
        "fast",
        "--dry-run",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("demo-rel-v1.0.0-2 (1.0.0 release 2) is not newer than the head of fast, demo-rel-v1.0.1-1 (1.0.1 release 1)"),
        "{err}"
    );
}

/// The graph (tree order, lanes, DOT) puts release 10 above release 2 above none.
#[test]
fn the_graph_orders_entries_by_version_then_release() {
    use fbc_core::graph::channel::{ChannelGraph, PackageFacts};
    let cat = load(&data().join("order")).unwrap();
    let idx = cat.index().package("demo-rel").unwrap();
    let facts = PackageFacts::read(&cat, idx);
    let g = ChannelGraph::build(&cat, &facts, idx.channel("stable").unwrap()).unwrap();
    let order: Vec<String> = g
        .newest_first()
        .into_iter()
        .map(|n| match g.graph[n].version_release() {
            Some(v) => v.to_string(),
            None => "?".into(),
        })
        .collect();
    assert_eq!(
        order,
        [
            "1.0.1",
            "1.0.0 release 10",
            "1.0.0 release 2",
            "1.0.0 release 1",
            "1.0.0"
        ]
    );
    let (code, dot, err) = fbc_edit(&[
        "graph", "order", "-p", "demo-rel", "-c", "stable", "-f", "dot",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        dot.contains("demo-rel-v1.0.0-10\\n1.0.0 release 10"),
        "{dot}"
    );
}

/// opm's bundle validation refuses a CSV with both a release and olm.substitutesFor.
#[test]
fn a_csv_with_a_release_and_substitutes_for_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/release/operators/konflux/0.2.2-rc.10");
    crate::common::copy_dir(&src, tmp.path());
    let csv = tmp
        .path()
        .join("manifests/konflux-operator.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&csv).unwrap();
    let text = text.replacen(
        "  annotations:\n",
        "  annotations:\n    olm.substitutesFor: konflux-operator.v0.2.2-rc.9\n",
        1,
    );
    let text = text.replacen("spec:\n", "spec:\n  release: \"2\"\n", 1);
    std::fs::write(&csv, text).unwrap();
    let (code, out, err) = fbc_edit(&["check-bundle", tmp.path().to_str().unwrap()]);
    let all = format!("{out}{err}");
    assert_ne!(code, 0, "{all}");
    assert!(
        all.contains("error[FBC227]")
            && all.contains("cannot have both a release version (\"2\") and olm.substitutesFor annotation (\"konflux-operator.v0.2.2-rc.9\")"),
        "{all}"
    );
}

/// The terminal UI: the graph pane's lanes and the details say version and release, and the
/// promote picker lists bundles newest first by version, then release.
#[test]
fn the_tui_orders_and_shows_releases() {
    use fbc_edit::tui::app::Dialog;
    let mut m = crate::common::tui_model(&data().join("order"));
    // The package open, the default channel (stable) first, then candidate (holding only 1.0.0).
    crate::common::press(&mut m, "l j j");
    assert_eq!(
        m.loaded().unwrap().selected(),
        ["demo-rel".to_string(), "candidate".to_string()]
    );
    crate::common::press(&mut m, "p");
    let Some(Dialog::PickBundle { picker, .. }) = &m.dialog else {
        panic!("{:?} {:?}", m.dialog, m.status);
    };
    assert_eq!(
        picker.options,
        [
            "demo-rel-v1.0.1-1",
            "demo-rel.v1.0.1",
            "demo-rel-v1.0.0-10",
            "demo-rel-v1.0.0-2",
            "demo-rel-v1.0.0-1",
        ]
    );
    assert!(picker.greyed.is_empty(), "{:?}", picker.greyed);
    crate::common::press(&mut m, "esc k l");
    assert_eq!(
        m.loaded().unwrap().selected(),
        ["demo-rel".to_string(), "stable".to_string()]
    );
    insta::assert_snapshot!(
        "release_order_160x30",
        crate::common::screen(&mut m, 160, 30)
    );
    crate::common::press(&mut m, "j j");
    let details = fbc_edit::tui::app::details(m.loaded().unwrap()).join("\n");
    assert!(details.contains("version: 1.0.0 release 10"), "{details}");
}
