//! The `list` command as a user runs it.

use std::path::PathBuf;

use assert_cmd::Command;

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo-catalog")
}

fn fbc() -> Command {
    Command::cargo_bin("fbc-edit").unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = fbc().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn lists_demo_packages() {
    let dir = demo();
    let text = stdout(&["list", dir.to_str().unwrap()]);
    insta::assert_snapshot!("demo_packages", text);
}

#[test]
fn a_missing_directory_is_a_usage_error_not_an_empty_screen() {
    let out = fbc().arg("no/such/catalog").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/catalog: not a directory"));
}

#[test]
fn info_prints_the_config_path_and_keys_and_names_a_bad_line() {
    let cfg = tempfile::tempdir().unwrap();
    let run = || {
        let out = fbc()
            .arg("info")
            .env("FBC_EDIT_CONFIG_DIR", cfg.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run();
    assert!(text.contains(&format!(
        "config file: {}",
        cfg.path().join("config.yaml").display()
    )));
    assert!(text.contains("absent: defaults in use"));
    assert!(text.contains("  quit             q/ctrl-c"));
    std::fs::write(cfg.path().join("config.yaml"), "keys:\n  quit: [x]\n").unwrap();
    assert!(run().contains("  quit             x "));
    std::fs::write(
        cfg.path().join("config.yaml"),
        "keys:\n  quit: [x\n  down: j\n",
    )
    .unwrap();
    let text = run();
    assert!(text.contains("warning: "), "{text}");
    assert!(text.contains("config.yaml:"), "{text}");
    assert!(
        text.contains("  quit             q/ctrl-c"),
        "defaults are kept: {text}"
    );
}

#[test]
fn lists_packages_as_json_in_the_documented_shape() {
    let dir = demo();
    let text = stdout(&["list", dir.to_str().unwrap(), "--output", "json"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pkgs = v["packages"].as_array().unwrap();
    assert!(pkgs.len() >= 3);
    for p in pkgs {
        let keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, vec!["name", "defaultChannel", "channels", "bundles"]);
        assert!(p["channels"].as_u64().unwrap() >= 1);
        assert!(p["bundles"].as_u64().unwrap() >= 1);
        assert!(!p["defaultChannel"].as_str().unwrap().is_empty());
    }
    let names: Vec<&str> = pkgs.iter().map(|p| p["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "packages come in name order");
    insta::assert_snapshot!("demo_packages_json", text);
}

#[test]
fn lists_channels_and_entries_of_a_real_catalog() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/real/operator-framework__operator-registry__index-declcfgs-latest");
    let d = dir.to_str().unwrap();
    insta::assert_snapshot!("declcfgs_foo_channels", stdout(&["list", d, "foo"]));
    insta::assert_snapshot!("declcfgs_foo_beta", stdout(&["list", d, "foo", "beta"]));
    let json = stdout(&["list", d, "foo", "beta", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let e = &v["entries"][1];
    assert_eq!(e["name"], "foo.v0.2.0");
    assert_eq!(e["version"], "0.2.0");
    assert_eq!(e["replaces"], "foo.v0.1.0");
    assert_eq!(e["skips"][1], "foo.v0.1.2");
    assert_eq!(e["skipRange"], "<0.2.0");
}

#[test]
fn demo_channels_and_entries() {
    let dir = demo();
    let d = dir.to_str().unwrap();
    let pkgs: serde_json::Value =
        serde_json::from_str(&stdout(&["list", d, "-o", "json"])).unwrap();
    for p in pkgs["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let chans: serde_json::Value =
            serde_json::from_str(&stdout(&["list", d, name, "-o", "json"])).unwrap();
        for c in chans["channels"].as_array().unwrap() {
            assert!(c["head"].is_string(), "{name}/{} has one head", c["name"]);
            let ch = c["name"].as_str().unwrap();
            let entries: serde_json::Value =
                serde_json::from_str(&stdout(&["list", d, name, ch, "-o", "json"])).unwrap();
            for e in entries["entries"].as_array().unwrap() {
                assert!(e["version"].is_string(), "{name}/{ch}: {e}");
            }
        }
    }
}

#[test]
fn unreadable_root_and_unknown_names_exit_2() {
    let out = fbc()
        .args(["list", "/nonexistent/catalog"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/catalog"), "{err}");

    let dir = demo();
    let out = fbc()
        .args(["list", dir.to_str().unwrap(), "no-such-package"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no package \"no-such-package\""));
}

#[test]
fn load_problems_go_to_stderr_with_locations_and_listing_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("good.yaml"),
        "schema: olm.package\nname: good\ndefaultChannel: stable\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("bad.json"),
        "{\"schema\": \"olm.package\",\n  \"a\": [}\n",
    )
    .unwrap();
    let out = fbc()
        .args(["list", tmp.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.json:2:9: error[FBC003]"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("good"));
}
