//! Upgrade queries: what an installed bundle is offered and its path to a head (v0 and v1),
//! what a skipRange prunes, and the package view of a package's channels.

use super::*;

#[test]
fn v0_offers_and_path_to_head() {
    let c = catalog("assets/demo-catalog");
    let g = channel(&c, "cache-operator", "stable");
    let from = Installed::resolve(&g, "cache-operator.v1.1.0").unwrap();
    let offers = query::v0_offers(&g, &from).unwrap();
    let names: Vec<(&str, Vec<EdgeKind>)> = offers
        .iter()
        .map(|o| (g.graph[o.entry].name.as_str(), o.via.clone()))
        .collect();
    // Nearest the head first; v1.2.1 is skipped by the head, so OLM v0 never offers it.
    assert_eq!(
        names,
        vec![
            ("cache-operator.v1.3.0", vec![EdgeKind::SkipRange]),
            ("cache-operator.v1.2.0", vec![EdgeKind::Replaces]),
        ]
    );
    let path = query::path_to_head(&g, &from).unwrap();
    assert_eq!(path.len(), 1);
    assert_eq!(g.graph[path[0].to].name, "cache-operator.v1.3.0");

    // A version no longer in the catalog still upgrades through a skipRange.
    let old = Installed::resolve(&g, "1.0.5").unwrap();
    assert_eq!(old.name, None);
    let path = query::path_to_head(&g, &old).unwrap();
    assert_eq!(path[0].via, vec![EdgeKind::SkipRange]);

    // The head has nowhere to go; an unknown old version has no way at all.
    let head = Installed::resolve(&g, "cache-operator.v1.3.0").unwrap();
    assert_eq!(query::path_to_head(&g, &head), Ok(vec![]));
    let ancient = Installed::resolve(&g, "0.1.0").unwrap();
    assert!(matches!(
        query::path_to_head(&g, &ancient),
        Err(NoPath::NoOffer(_))
    ));

    // Two hops in the fast channel: replaces to v1.3.0, then to the head.
    let fast = channel(&c, "cache-operator", "fast");
    let from = Installed::resolve(&fast, "1.2.0").unwrap();
    let hops: Vec<String> = query::path_to_head(&fast, &from)
        .unwrap()
        .iter()
        .map(|h| fast.graph[h.to].name.clone())
        .collect();
    assert_eq!(hops, ["cache-operator.v1.3.0", "cache-operator.v1.4.0"]);
}

#[test]
fn no_path_when_the_channel_has_no_single_head() {
    let g = synthetic(&spec(&["p.v1.0.0", "p.v1.1.0~>=1.0.0 <1.1.0"]));
    let from = Installed::resolve(&g, "p.v1.0.0").unwrap();
    match query::path_to_head(&g, &from) {
        Err(NoPath::Unordered(why)) => assert!(why.contains("2 heads"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn skip_range_matches_and_prunes() {
    let c = catalog("assets/demo-catalog");
    let g = channel(&c, "cache-operator", "stable");
    let head = g.node("cache-operator.v1.3.0").unwrap();
    let effect = query::skip_range_effect(&g, head).unwrap();
    let names = |ns: &[petgraph::graph::NodeIndex]| -> Vec<String> {
        ns.iter().map(|&n| g.graph[n].name.clone()).collect()
    };
    assert_eq!(
        names(&effect.matched),
        [
            "cache-operator.v1.2.1",
            "cache-operator.v1.2.0",
            "cache-operator.v1.1.0",
            "cache-operator.v1.0.0"
        ]
    );
    // v1.2.1 is skipped: clusters on it upgrade, but nobody can install it any more.
    assert_eq!(names(&effect.pruned), ["cache-operator.v1.2.1"]);
}

#[test]
fn v1_considers_every_channel_and_takes_the_highest_version() {
    let c = catalog("assets/demo-catalog");
    let graphs = package_channel_graphs(&c, c.index().package("cache-operator").unwrap());
    let refs: Vec<&ChannelGraph> = graphs.iter().collect();
    let stable = channel(&c, "cache-operator", "stable");
    let from = Installed::resolve(&stable, "cache-operator.v1.2.0").unwrap();
    let succ = query::v1_successors(&refs, &from);
    let names: Vec<&str> = succ.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names[0], "cache-operator.v1.3.0");
    assert!(
        names.contains(&"cache-operator.v1.2.1"),
        "OLM v1 does not prune skipped entries: {names:?}"
    );
}

#[test]
fn upgrade_queries_ask_one_channel_or_every_channel() {
    use query::{QueryError, UpgradeQuery};
    let c = catalog("assets/demo-catalog");
    let q = UpgradeQuery::new(
        &c,
        "cache-operator",
        Some("stable"),
        "cache-operator.v1.1.0",
    )
    .unwrap();
    assert_eq!(q.graphs().len(), 1);
    let v0 = q.v0();
    let hops = v0.path.as_ref().unwrap();
    assert_eq!(q.first().graph[hops[0].to].name, "cache-operator.v1.3.0");
    let v1 = q.v1();
    assert_eq!(v1.target.as_deref(), Some("cache-operator.v1.3.0"));
    assert!(v1.reached);
    assert!(v0.same_way_as(q.first(), &v1));

    // Every channel: an entry found in any of them.
    let all = UpgradeQuery::new(&c, "cache-operator", None, "1.2.0").unwrap();
    assert!(all.graphs().len() > 1);
    assert_eq!(all.from().name.as_deref(), Some("cache-operator.v1.2.0"));

    assert_eq!(
        UpgradeQuery::new(&c, "nope", None, "1.0.0").err(),
        Some(QueryError::NoPackage("nope".into()))
    );
    assert_eq!(
        UpgradeQuery::new(&c, "cache-operator", Some("stable"), "latest")
            .err()
            .map(|e| e.to_string())
            .as_deref(),
        Some("\"latest\" is neither an entry of cache-operator/stable nor a version")
    );
}

#[test]
fn package_view_joins_the_channels() {
    use fbc_core::graph::channel::PackageGraph;
    let c = catalog("assets/demo-catalog");
    let graphs = package_channel_graphs(&c, c.index().package("cache-operator").unwrap());
    let p = PackageGraph::build("cache-operator", &graphs);
    let v13 = p.by_name["cache-operator.v1.3.0"];
    let mut channels = p.graph[v13].channels.clone();
    channels.sort();
    assert_eq!(channels, ["fast", "stable"]);
    // v1.3.0 -> v1.4.0 exists only in "fast"; the package view has it.
    let v14 = p.by_name["cache-operator.v1.4.0"];
    let e = p.graph.find_edge(v13, v14).unwrap();
    assert_eq!(p.graph[e], (EdgeKind::Replaces, "fast".to_string()));
    assert_eq!(
        p.graph.node_count(),
        graphs
            .iter()
            .flat_map(|g| g.graph.node_indices().map(move |n| g.graph[n].name.clone()))
            .collect::<std::collections::HashSet<_>>()
            .len()
    );
}

mod random_channels {
    use super::*;
    use proptest::prelude::*;

    /// Up to 12 entries p.v1.<i>.0; each may replace and skip random other entries, and have a
    /// skipRange below its own version.
    fn channel_spec() -> impl Strategy<Value = Vec<String>> {
        (2usize..12).prop_flat_map(|n| {
            prop::collection::vec(
                (
                    prop::option::of(0..n),
                    prop::collection::vec(0..n, 0..3),
                    prop::option::of(0..n),
                ),
                n,
            )
            .prop_map(move |links| {
                links
                    .into_iter()
                    .enumerate()
                    .map(|(i, (rep, skips, range))| {
                        let mut s = format!("p.v1.{i}.0");
                        if let Some(r) = rep {
                            s.push_str(&format!("<p.v1.{r}.0"));
                        }
                        if !skips.is_empty() {
                            let names: Vec<String> =
                                skips.iter().map(|k| format!("p.v1.{k}.0")).collect();
                            s.push('!');
                            s.push_str(&names.join(","));
                        }
                        if let Some(lo) = range {
                            s.push_str(&format!("~>=1.{lo}.0 <1.{i}.0"));
                        }
                        s
                    })
                    .collect()
            })
        })
    }

    proptest! {
        #[test]
        fn layout_and_paths_hold_for_any_channel(spec in channel_spec()) {
            let g = synthetic(&spec);
            let l = layout::layout(&g);
            let mut drawn: Vec<_> = l.rows.iter().filter_map(|r| r.entry).collect();
            drawn.sort();
            let mut all: Vec<_> = g.graph.node_indices().collect();
            all.sort();
            prop_assert_eq!(drawn, all, "every entry is drawn exactly once");
            prop_assert!(l.width <= 2 * (MAX_LANES + g.graph.node_count()) + 2);
            prop_assert_eq!(&layout::layout(&g), &l);
            for n in g.graph.node_indices() {
                let from = Installed::resolve(&g, &g.graph[n].name).unwrap();
                let path = query::path_to_head(&g, &from);
                if g.ordered() && g.graph[n].rank.is_some() {
                    // Anything OLM v0 keeps in the channel can reach the head, hop by hop.
                    let hops = path.unwrap();
                    if !g.graph[n].head {
                        let last = hops.last().unwrap().to;
                        prop_assert!(g.graph[last].head);
                    }
                }
            }
        }
    }
}
