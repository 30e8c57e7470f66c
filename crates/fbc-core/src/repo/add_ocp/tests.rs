use super::ci::{Ci, CiYaml, append_catalog};
use super::*;
use crate::catalog::yaml::typed;

#[test]
fn versions_order_by_number_not_text() {
    let mut v: Vec<OcpVersion> = ["v5.0", "v4.9", "v4.22", "v4.23", "v5.1"]
        .iter()
        .map(|s| OcpVersion::parse(s).unwrap())
        .collect();
    v.sort();
    let names: Vec<String> = v.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["v4.9", "v4.22", "v4.23", "v5.0", "v5.1"]);
    for bad in [
        "4.22",
        "v4",
        "v4.x",
        "v4.22.1",
        "v.1",
        "v-1.2",
        "v1234567890.1",
        "v04.22",
    ] {
        assert_eq!(OcpVersion::parse(bad), None, "{bad}");
    }
    assert!(OcpVersion::parse("v4.17").unwrap().migrates());
    assert!(!OcpVersion::parse("v4.16").unwrap().migrates());
    assert!(OcpVersion::parse("v5.0").unwrap().migrates());
}

fn ci(text: &str) -> Ci {
    let typed::Typed { value, tree } = typed::parse::<CiYaml>(text, "ci.yaml").unwrap();
    Ci {
        value,
        tree,
        text: text.to_string(),
    }
}

#[test]
fn a_flow_list_keeps_its_brackets_quotes_and_line_breaks() {
    let text = "---\n# the mapping\nfbc:\n  catalog_mapping:\n    - template_name: basic.yaml\n      catalog_names: [\"v4.21\",\n        \"v4.22\"]  # grows\n      type: olm.template.basic\n";
    let new = append_catalog(&ci(text), 0, "v4.23").unwrap();
    assert_eq!(
        new,
        text.replace("\"v4.22\"]", "\"v4.22\", \"v4.23\"]"),
        "{new}"
    );
}

#[test]
fn a_block_list_gets_one_line_in_its_indentation() {
    let text = "fbc:\n  catalog_mapping:\n    - catalog_names:\n        - v4.21\n        - v4.22   # last\n      template_name: a.yaml\n    - catalog_names:\n        - v4.12\n      template_name: b.yaml\n  enabled: true\n";
    let new = append_catalog(&ci(text), 0, "v4.23").unwrap();
    assert_eq!(
        new,
        text.replace("# last\n", "# last\n        - v4.23\n"),
        "{new}"
    );
    let other = append_catalog(&ci(text), 1, "v4.13").unwrap();
    assert_eq!(
        other,
        text.replace("- v4.12\n", "- v4.12\n        - v4.13\n"),
        "{other}"
    );
}

#[test]
fn strategies_default_to_review_and_unknown_ones_promote_nothing() {
    assert_eq!(Strategy::of(None), Strategy::ReviewNeeded);
    assert!(Strategy::of(Some("always")).promotes());
    assert!(!Strategy::of(Some("never")).promotes());
    assert!(!Strategy::of(Some("Always")).promotes());
}
