//! Upgrade graphs: Mermaid as opm prints it, DOT that Graphviz accepts, the lanes layout, and the
//! upgrade queries.

use std::fmt::Write as _;
use std::path::PathBuf;

use assert_cmd::Command;
use fbc_core::catalog::model::ChannelEntry;
use fbc_core::catalog::node::{Kind, Node, Pos, Style};
use fbc_core::catalog::{Catalog, load, semver_range::Version};
use fbc_core::graph::channel::{
    ChannelGraph, EdgeKind, PackageFacts, all_channel_graphs, package_channel_graphs,
};
use fbc_core::graph::export::{self, MermaidOptions, Selection};
use fbc_core::graph::layout::{self, MAX_LANES};
use fbc_core::graph::query::{self, Installed, NoPath};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn catalog(rel: &str) -> Catalog {
    load(&root().join(rel)).unwrap()
}

fn channel(c: &Catalog, package: &str, name: &str) -> ChannelGraph {
    let idx = c.index().package(package).unwrap();
    let facts = PackageFacts::read(c, idx);
    ChannelGraph::build(c, &facts, idx.channel(name).unwrap()).unwrap()
}

fn mermaid(c: &Catalog, package: Option<&str>, v0: bool) -> String {
    export::mermaid(
        c,
        &Selection {
            package: package.map(String::from),
            channel: None,
            ..Default::default()
        },
        &MermaidOptions { v0_semantics: v0 },
    )
}

/// `opm alpha render-graph` of this catalog (the graph of opm's own writer test), with
/// `--draw-v0-semantics`.
const OPM_DEPRECATED_AND_SKIPPED: &str = r#"graph LR
  classDef deprecated fill:#E8960F
  classDef skipped stroke:#FF0000,stroke-width:4px
  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px
  %% package "anakin"
  subgraph "anakin"
    %% channel "dark"
    subgraph anakin-dark["dark"]
      anakin-dark-anakin.v0.1.1["anakin.v0.1.1"]
      anakin-dark-anakin.v0.1.0["anakin.v0.1.0"]-- skip --> anakin-dark-anakin.v0.1.1["anakin.v0.1.1"]
      anakin-dark-anakin.v0.0.1["anakin.v0.0.1"]-- replace --> anakin-dark-anakin.v0.1.1["anakin.v0.1.1"]
      anakin-dark-anakin.v0.1.0["anakin.v0.1.0"]
      anakin-dark-anakin.v0.0.1["anakin.v0.0.1"]-- replace --> anakin-dark-anakin.v0.1.0["anakin.v0.1.0"]
      anakin-dark-anakin.v0.0.1["anakin.v0.0.1"]
    end
    %% channel "light"
    subgraph anakin-light["light"]
      anakin-light-anakin.v0.1.0["anakin.v0.1.0"]
      anakin-light-anakin.v0.0.1["anakin.v0.0.1"]-- replace --> anakin-light-anakin.v0.1.0["anakin.v0.1.0"]
      anakin-light-anakin.v0.0.1["anakin.v0.0.1"]
    end
  end
  %% package "boba-fett"
  subgraph "boba-fett"
    %% channel "mando"
    subgraph boba-fett-mando["mando"]
      boba-fett-mando-boba-fett.v2.0.0["boba-fett.v2.0.0"]
      boba-fett-mando-boba-fett.v1.0.0["boba-fett.v1.0.0"]-- replace --> boba-fett-mando-boba-fett.v2.0.0["boba-fett.v2.0.0"]
      boba-fett-mando-boba-fett.v1.0.0["boba-fett.v1.0.0"]
    end
  end
style anakin fill:#989695
style anakin-light fill:#DCD0FF
class anakin-dark-anakin.v0.0.1,anakin-light-anakin.v0.0.1 deprecated
class anakin-dark-anakin.v0.1.0 skipped
linkStyle 2 stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;
"#;

#[test]
fn mermaid_is_byte_for_byte_opms() {
    let c = catalog("testdata/graph/deprecated-and-skipped");
    assert_eq!(mermaid(&c, None, true), OPM_DEPRECATED_AND_SKIPPED);
    // `-p boba-fett`
    let want = r#"graph LR
  classDef deprecated fill:#E8960F
  classDef skipped stroke:#FF0000,stroke-width:4px
  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px
  %% package "boba-fett"
  subgraph "boba-fett"
    %% channel "mando"
    subgraph boba-fett-mando["mando"]
      boba-fett-mando-boba-fett.v2.0.0["boba-fett.v2.0.0"]
      boba-fett-mando-boba-fett.v1.0.0["boba-fett.v1.0.0"]-- replace --> boba-fett-mando-boba-fett.v2.0.0["boba-fett.v2.0.0"]
      boba-fett-mando-boba-fett.v1.0.0["boba-fett.v1.0.0"]
    end
  end
"#;
    let got = mermaid(&c, Some("boba-fett"), true);
    assert_eq!(got, want);
    assert!(!got.contains("anakin"));
}

#[test]
fn mermaid_skip_range_edges_match_opms_example() {
    let c = catalog("testdata/graph/skiprange");
    let want = r#"graph LR
  classDef deprecated fill:#E8960F
  classDef skipped stroke:#FF0000,stroke-width:4px
  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px
  %% package "foo"
  subgraph "foo"
    %% channel "stable"
    subgraph foo-stable["stable"]
      foo-stable-foo.v1.2.0["foo.v1.2.0"]
      foo-stable-foo.v1.0.0["foo.v1.0.0"]-- "skipRange(>=1.0.0 <1.2.0)" --> foo-stable-foo.v1.2.0["foo.v1.2.0"]
      foo-stable-foo.v1.1.0["foo.v1.1.0"]-- "skipRange(>=1.0.0 <1.2.0)" --> foo-stable-foo.v1.2.0["foo.v1.2.0"]
      foo-stable-foo.v1.1.0["foo.v1.1.0"]-- replace --> foo-stable-foo.v1.2.0["foo.v1.2.0"]
      foo-stable-foo.v1.1.0["foo.v1.1.0"]
      foo-stable-foo.v1.0.0["foo.v1.0.0"]-- replace --> foo-stable-foo.v1.1.0["foo.v1.1.0"]
      foo-stable-foo.v1.0.0["foo.v1.0.0"]
    end
  end
"#;
    assert_eq!(mermaid(&c, Some("foo"), false), want);
}

/// Entries whose versions differ only in build metadata (`3.14.1` and `3.14.1+0.1718225063.p`)
/// compare equal, and opm lists them in the order Go's unstable `sort.Slice` leaves them. The
/// order each channel must have was recorded by running that sort under Go
/// (testdata/gosort/mermaid); a stable sort gives another order in seven of the nine channels.
#[test]
fn mermaid_lists_entries_of_equal_versions_in_opms_order() {
    #[derive(serde::Deserialize)]
    struct Recorded {
        channels: Vec<RecordedChannel>,
    }
    #[derive(serde::Deserialize)]
    struct RecordedChannel {
        channel: String,
        entries: Vec<(String, String)>,
        order: Vec<String>,
    }
    let package = "gatekeeper-operator-product";
    let c = catalog("testdata/real/stolostron__gatekeeper-operator-fbc__catalog-4-17");
    let rec: Recorded = serde_json::from_str(
        &std::fs::read_to_string(root().join("testdata/gosort/gatekeeper-operator-product.json"))
            .unwrap(),
    )
    .unwrap();
    let text = mermaid(&c, Some(package), false);
    let idx = c.index().package(package).unwrap();
    assert_eq!(rec.channels.len(), idx.channels.len());
    let mut differs_from_stable = 0;
    for ch in &rec.channels {
        // The recording sorted the channel's entries as the catalog lists them.
        let blob = c.blob(idx.channel(&ch.channel).unwrap());
        let entries = fbc_core::catalog::model::Channel::read(&blob.value)
            .unwrap()
            .entries;
        let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
        let recorded: Vec<&str> = ch.entries.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, recorded, "{}", ch.channel);
        // The node lines of the channel's subgraph, in the order printed.
        let start = format!("    subgraph {package}-{}[", ch.channel);
        let prefix = format!("      {package}-{}-", ch.channel);
        let nodes: Vec<String> = text
            .lines()
            .skip_while(|l| !l.starts_with(&start))
            .skip(1)
            .take_while(|l| *l != "    end")
            .filter(|l| l.starts_with(&prefix) && !l.contains("-->"))
            .map(|l| l[l.find("[\"").unwrap() + 2..l.len() - 2].to_string())
            .collect();
        assert_eq!(nodes, ch.order, "channel {}", ch.channel);
        let mut stable = ch.entries.clone();
        stable.sort_by_key(|(_, v)| std::cmp::Reverse(Version::parse(v).unwrap()));
        if stable.iter().map(|(n, _)| n).ne(ch.order.iter()) {
            differs_from_stable += 1;
        }
    }
    assert_eq!(differs_from_stable, 7);
}

#[test]
fn mermaid_red_links_follow_the_printed_order_across_packages() {
    let c = catalog("testdata/graph/two-packages-red-links");
    let text = mermaid(&c, None, true);
    let links: Vec<&str> = text.lines().filter(|l| l.contains("--")).collect();
    let style = text.lines().find(|l| l.starts_with("linkStyle ")).unwrap();
    let ids: Vec<usize> = style["linkStyle ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    // The only link OLM v0 ignores is the replaces into the skipped a.v1.1.0.
    assert_eq!(ids.len(), 1);
    assert!(
        links[ids[0]].ends_with("a-zeta-a.v1.1.0[\"a.v1.1.0\"]")
            && links[ids[0]].contains("replace"),
        "{}",
        links[ids[0]]
    );
}

#[test]
fn mermaid_escapes_what_it_cannot_take() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("c.yaml"),
        "schema: olm.package\nname: odd\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: odd\nname: stable\nentries:\n- name: 'odd v1 \"beta\"'\n",
    )
    .unwrap();
    let c = load(dir.path()).unwrap();
    let text = mermaid(&c, None, false);
    assert!(
        text.contains("odd-stable-odd_20_v1_20__22_beta_22_[\"odd v1 #quot;beta#quot;\"]"),
        "{text}"
    );
}

/// Whether Graphviz draws `text` (installed by `.ci/test-setup`; missing, the test fails).
fn dot_accepts(text: &str) -> bool {
    let mut child = std::process::Command::new("dot")
        .arg("-Tsvg")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("Graphviz `dot` runs (bash .ci/test-setup installs it)");
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    if !out.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    }
    out.status.success() && out.stdout.starts_with(b"<?xml")
}

#[test]
fn dot_output_is_accepted_by_graphviz() {
    let odd = tempfile::tempdir().unwrap();
    std::fs::write(
        odd.path().join("c.yaml"),
        "schema: olm.package\nname: odd\ndefaultChannel: 'st\"able'\n---\nschema: olm.channel\npackage: odd\nname: 'st\"able'\nentries:\n- name: 'a \\ b'\n- name: 'c \"d\"'\n  replaces: 'a \\ b'\n  skips: [gone]\n",
    )
    .unwrap();
    let inputs = [
        root().join("assets/demo-catalog"),
        root().join("testdata/graph/deprecated-and-skipped"),
        root().join("testdata/graph/skiprange"),
        odd.path().to_path_buf(),
    ];
    for dir in inputs {
        let c = load(&dir).unwrap();
        let text = export::dot(&c, &Selection::default());
        assert!(text.starts_with("digraph upgrades {\n") && text.ends_with("}\n"));
        assert!(
            dot_accepts(&text),
            "dot rejected the graph of {}:\n{text}",
            dir.display()
        );
    }
}

#[test]
fn demo_channels_are_drawn_as_lanes() {
    let c = catalog("assets/demo-catalog");
    let mut all = String::new();
    let mut graphs = all_channel_graphs(&c);
    graphs.sort_by(|a, b| (&a.package, &a.channel).cmp(&(&b.package, &b.channel)));
    for g in &graphs {
        let _ = writeln!(all, "{}/{}", g.package, g.channel);
        all.push_str(&layout::layout(g).text());
    }
    insta::assert_snapshot!("demo_lanes", all);
}

static NULL: Node = Node::with(Kind::Null, Pos::NONE, Style::Any);

/// A channel from a compact spec: `"v2<v1"` replaces, `"v3!v1,v2"` skips, `"v4~>=1.0.0 <1.4.0"` skipRange.
fn synthetic(spec: &[String]) -> ChannelGraph {
    let entries: Vec<ChannelEntry> = spec
        .iter()
        .map(|s| {
            let s: &'static str = Box::leak(s.clone().into_boxed_str());
            let (s, range) = s.split_once('~').unwrap_or((s, ""));
            let (head, skips) = s.split_once('!').unwrap_or((s, ""));
            let (name, replaces) = head.split_once('<').unwrap_or((head, ""));
            ChannelEntry {
                name,
                replaces: (!replaces.is_empty()).then_some(replaces),
                skips: skips.split(',').filter(|s| !s.is_empty()).collect(),
                skip_range: (!range.is_empty()).then_some(range),
                node: &NULL,
            }
        })
        .collect();
    let facts = PackageFacts {
        versions: entries
            .iter()
            .filter_map(|e| {
                let v = e.name.trim_start_matches("p.v");
                Version::parse(v).ok().map(|v| (e.name.to_string(), v))
            })
            .collect(),
        releases: Default::default(),
        deprecated_bundles: Default::default(),
        deprecated_channels: Default::default(),
        deprecated: false,
        default_channel: "stable".into(),
    };
    ChannelGraph::from_entries("p", "stable", &entries, &facts)
}

fn spec(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn unlinked_entries_never_look_linked() {
    // Two heads and an entry nothing links: each starts its own column.
    let g = synthetic(&spec(&["p.v1.0.0", "p.v1.1.0", "p.v1.2.0<p.v1.0.0"]));
    insta::assert_snapshot!("two_heads", layout::layout(&g).text());
    let g = synthetic(&spec(&[
        "p.v1.0.0<p.v1.1.0",
        "p.v1.1.0<p.v1.0.0",
        "p.v2.0.0<p.v1.1.0",
    ]));
    insta::assert_snapshot!("cycle", layout::layout(&g).text());
}

#[test]
fn long_channels_stay_within_the_lane_limit() {
    // 300 entries, each replacing the previous one and skipping every older one (a common pattern).
    let mut items = vec!["p.v1.0.0".to_string()];
    for i in 1..300usize {
        let skips: Vec<String> = (0..i.saturating_sub(1))
            .map(|j| format!("p.v1.{j}.0"))
            .collect();
        let mut s = format!("p.v1.{i}.0<p.v1.{}.0", i - 1);
        if !skips.is_empty() {
            s.push('!');
            s.push_str(&skips.join(","));
        }
        items.push(s);
    }
    let g = synthetic(&items);
    let l = layout::layout(&g);
    assert!(l.width <= 2 * MAX_LANES + 2, "width {}", l.width);
    let entries: Vec<_> = l.rows.iter().filter_map(|r| r.entry).collect();
    assert_eq!(entries.len(), 300, "every entry is drawn once");
    assert_eq!(layout::layout(&g), l, "the layout is deterministic");
    let text = l.text();
    assert!(
        text.contains("(not drawn)"),
        "links beyond the limit are listed"
    );
    insta::assert_snapshot!(
        "long_channel_top",
        text.lines().take(30).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn cli_graph_and_path() {
    let demo = root().join("assets/demo-catalog");
    let demo = demo.to_str().unwrap();
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(["graph", demo, "--package", "backup-operator"])
        .output()
        .unwrap();
    assert!(out.status.success());
    insta::assert_snapshot!("cli_graph_backup", String::from_utf8(out.stdout).unwrap());

    let run = |args: &[&str]| {
        let out = Command::cargo_bin("fbc-edit")
            .unwrap()
            .args(["path", demo])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8(out.stdout).unwrap(),
        )
    };
    let (code, text) = run(&[
        "-p",
        "cache-operator",
        "-c",
        "fast",
        "--from",
        "cache-operator.v1.2.0",
    ]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("cli_path_fast", text);
    let (code, text) = run(&[
        "-p",
        "cache-operator",
        "-c",
        "stable",
        "--from",
        "0.1.0",
        "-o",
        "json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("no skipRange contains")
    );
    assert!(v["path"].is_null());
    assert_eq!(run(&["-p", "nope", "-c", "stable", "--from", "1.0.0"]).0, 2);
    assert_eq!(
        run(&["-p", "cache-operator", "-c", "stable", "--from", "banana"]).0,
        2
    );
}

mod queries;
