//! `fbc-edit path`: the reason OLM v0 offers no upgrade names the chain of links that stops it, and
//! `--olm v1` answers as operator-controller would, beside OLM v0 where the two differ.

use assert_cmd::Command;

/// A catalog of one package `p` whose channel `stable` has these entries: `(name, replaces, skips,
/// skipRange)`, each a bundle `p.v<name>` of version `<name>`.
fn catalog(entries: &[(&str, &str, &[&str], &str)]) -> tempfile::TempDir {
    let mut y = String::from(
        "---\nschema: olm.package\nname: p\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: p\nname: stable\nentries:\n",
    );
    for (name, replaces, skips, range) in entries {
        y.push_str(&format!("- name: p.v{name}\n"));
        if !replaces.is_empty() {
            y.push_str(&format!("  replaces: p.v{replaces}\n"));
        }
        if !skips.is_empty() {
            y.push_str("  skips:\n");
            for s in *skips {
                y.push_str(&format!("  - p.v{s}\n"));
            }
        }
        if !range.is_empty() {
            y.push_str(&format!("  skipRange: '{range}'\n"));
        }
    }
    for (name, ..) in entries {
        y.push_str(&format!(
            "---\nschema: olm.bundle\npackage: p\nname: p.v{name}\nimage: quay.io/p/b:{name}\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n    version: {name}\n"
        ));
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("catalog.yaml"), y).unwrap();
    tmp
}

fn path(dir: &tempfile::TempDir, args: &[&str]) -> (i32, String) {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .arg("path")
        .arg(dir.path())
        .args(["-p", "p"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// v2 replaces v1, v3 skips v2: v2 is dropped, so nothing OLM v0 keeps upgrades v1.
fn skipped_successor() -> tempfile::TempDir {
    catalog(&[
        ("1.0.0", "", &[], ""),
        ("2.0.0", "1.0.0", &[], ""),
        ("3.0.0", "", &["2.0.0"], ""),
    ])
}

#[test]
fn the_reason_names_the_chain() {
    let dir = skipped_successor();
    let (code, text) = path(&dir, &["-c", "stable", "--from", "p.v1.0.0"]);
    assert_eq!(code, 1);
    assert_eq!(
        text,
        "no upgrade path from p.v1.0.0 to the head of p/stable: p.v2.0.0 replaces p.v1.0.0, but p.v3.0.0 skips p.v2.0.0, so OLM v0 drops p.v2.0.0; nothing that OLM v0 keeps in channel \"stable\" replaces or skips p.v1.0.0 or has a skipRange containing its version\n"
    );
}

#[test]
fn a_skipper_that_is_itself_skipped() {
    // Like rhbk-operator's stable-v26: 1.0.17 skips the 1.0.x releases, but 1.2.16 replaces and
    // skips 1.0.17, so OLM v0 drops 1.0.17 and clusters on 1.0.8 are stuck.
    let dir = catalog(&[
        ("1.0.5", "", &[], ""),
        ("1.0.8", "", &[], ""),
        ("1.0.17", "", &["1.0.5", "1.0.8"], ""),
        ("1.2.16", "1.0.17", &["1.0.17"], ""),
        ("1.4.15", "1.2.16", &["1.2.16"], ""),
    ]);
    let (code, text) = path(&dir, &["-c", "stable", "--from", "1.0.8"]);
    assert_eq!(code, 1);
    assert!(
        text.contains(
            "p.v1.0.17 skips p.v1.0.8, but p.v1.2.16 skips p.v1.0.17, so OLM v0 drops p.v1.0.17"
        ),
        "{text}"
    );
    // OLM v1 drops nothing: 1.0.8 → 1.0.17 → 1.2.16 → 1.4.15.
    let (code, text) = path(&dir, &["-c", "stable", "--from", "1.0.8", "--olm", "v1"]);
    assert_eq!(code, 0, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "OLM v1 (channel stable): p.v1.0.8 → p.v1.4.15: 3 upgrades"
    );
    assert_eq!(
        lines[1],
        "  p.v1.0.8 → p.v1.0.17  highest successor 1.0.17, via skips (stable)"
    );
    assert_eq!(
        lines[2],
        "  p.v1.0.17 → p.v1.2.16  highest successor 1.2.16, via replaces (stable), skips (stable)"
    );
    assert_eq!(lines[4], "OLM v0 differs:");
    assert!(
        lines[5].starts_with("  no upgrade path from p.v1.0.8"),
        "{text}"
    );
}

#[test]
fn olm_v1_picks_the_highest_successor_where_v0_walks_the_chain() {
    // 1.0.0 is replaced by 1.1.0 and inside 1.2.0's skipRange: OLM v1 takes the highest successor
    // (1.2.0), and OLM v0 the offer nearest the head, the same one.
    let dir = catalog(&[
        ("1.0.0", "", &[], ""),
        ("1.1.0", "1.0.0", &[], ""),
        ("1.2.0", "1.1.0", &[], ">=1.0.0 <1.2.0"),
    ]);
    let (code, text) = path(&dir, &["-c", "stable", "--from", "1.0.0", "--olm", "v1"]);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        "OLM v1 (channel stable): p.v1.0.0 → p.v1.2.0: 1 upgrade\n  p.v1.0.0 → p.v1.2.0  highest successor 1.2.0, via skipRange (stable)\nOLM v0 takes the same way.\n"
    );
    let (code, json) = path(
        &dir,
        &[
            "-c", "stable", "--from", "1.0.0", "--olm", "v1", "-o", "json",
        ],
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["olm"], "v1");
    assert_eq!(v["reached"], true);
    assert_eq!(v["path"][0]["to"], "p.v1.2.0");
    assert_eq!(v["path"][0]["via"][0]["kind"], "skipRange");
    assert_eq!(v["v0_differs"], false);
}

#[test]
fn olm_v1_without_a_channel_looks_at_every_channel() {
    let dir = skipped_successor();
    let (code, text) = path(&dir, &["--from", "p.v1.0.0", "--olm", "v1"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.starts_with("OLM v1 (every channel of p): p.v1.0.0 → p.v3.0.0: 2 upgrades\n"),
        "{text}"
    );
    // OLM v0 needs a channel.
    let (code, text) = path(&dir, &["--from", "p.v1.0.0"]);
    assert_eq!(code, 2, "{text}");
}

#[test]
fn olm_v1_stops_where_nothing_links_on() {
    let dir = catalog(&[("1.0.0", "", &[], ""), ("2.0.0", "", &[], "")]);
    let (code, text) = path(&dir, &["-c", "stable", "--from", "1.0.0", "--olm", "v1"]);
    assert_eq!(code, 1);
    assert!(
        text.starts_with("OLM v1 (channel stable): no upgrade from p.v1.0.0: nothing replaces or skips it and no skipRange contains its version (the target is p.v2.0.0)"),
        "{text}"
    );
}
