//! opm's wording: errors from loading and converting (opm stops at the first of these; we print them
//! all, one per line), then the `invalid index` tree of model errors, sorted by name where opm's order
//! is random. Warnings and notes are not shown: opm has none.

use std::collections::BTreeMap;

use crate::catalog::Catalog;
use crate::catalog::diagnostic::{Diagnostic, OpmStage, Severity};
use crate::text::escape::go_quote;

#[derive(Default)]
struct PackageNode {
    leaves: Vec<String>,
    channels: BTreeMap<String, ChannelNode>,
    /// Leaves opm adds after the channels (duplicate versions, the deprecation message).
    after: Vec<String>,
}

#[derive(Default)]
struct ChannelNode {
    leaves: Vec<String>,
    bundles: BTreeMap<String, Vec<String>>,
    after: Vec<String>,
}

/// A node of opm's error tree.
struct Tree {
    message: String,
    children: Vec<Tree>,
}

impl Tree {
    fn leaf(message: &str) -> Tree {
        Tree {
            message: message.to_string(),
            children: Vec::new(),
        }
    }

    fn render(&self, out: &mut String, prefix: &str) {
        out.push_str(&self.message);
        if !self.children.is_empty() {
            out.push(':');
        }
        for (i, child) in self.children.iter().enumerate() {
            let last = i + 1 == self.children.len();
            out.push('\n');
            out.push_str(prefix);
            out.push_str(if last { "└── " } else { "├── " });
            let deeper = format!("{prefix}{}", if last { "    " } else { "│   " });
            child.render(out, &deeper);
        }
    }
}

/// The text `opm validate` would print for these problems (empty when there is no error).
pub fn render(catalog: &Catalog, diagnostics: &[Diagnostic]) -> String {
    let mut lines = Vec::new();
    let mut packages: BTreeMap<String, PackageNode> = BTreeMap::new();
    for d in diagnostics.iter().filter(|d| d.severity == Severity::Error) {
        let Some(opm) = &d.opm else {
            // Loading problems opm reports with its own decoder text; ours names the place.
            if d.object.package.is_none() && d.code < "FBC010" {
                lines.push(format!("{}: {}", d.location, d.message));
            }
            continue;
        };
        let pkg = d.object.package.clone().unwrap_or_default();
        match opm.stage {
            OpmStage::Load | OpmStage::Convert => lines.push(opm.text.clone()),
            OpmStage::Package => {
                let node = packages.entry(pkg).or_default();
                if opm.text.starts_with("duplicate versions")
                    || opm.text.starts_with("invalid deprecation")
                {
                    node.after.push(opm.text.clone());
                } else {
                    node.leaves.push(opm.text.clone());
                }
            }
            OpmStage::Channel => {
                let ch = d.object.channel.clone().unwrap_or_default();
                let node = packages
                    .entry(pkg)
                    .or_default()
                    .channels
                    .entry(ch)
                    .or_default();
                if opm.text.starts_with("invalid deprecation") {
                    node.after.push(opm.text.clone());
                } else {
                    node.leaves.push(opm.text.clone());
                }
            }
            OpmStage::Bundle => {
                let bundle = d.object.bundle.clone().unwrap_or_default();
                let channels = bundle_channels(catalog, d, &pkg, &bundle);
                let node = packages.entry(pkg).or_default();
                for ch in channels {
                    node.channels
                        .entry(ch)
                        .or_default()
                        .bundles
                        .entry(bundle.clone())
                        .or_default()
                        .push(opm.text.clone());
                }
            }
        }
    }
    let mut out = lines.join("\n");
    if !packages.is_empty() {
        let root = Tree {
            message: "invalid index".into(),
            children: packages
                .into_iter()
                .map(|(name, p)| p.tree(&name))
                .collect(),
        };
        if !out.is_empty() {
            out.push('\n');
        }
        root.render(&mut out, "");
    }
    out
}

/// The channels opm reports a bundle problem under: the diagnostic's channel, else every channel
/// of the package that lists the bundle.
fn bundle_channels(catalog: &Catalog, d: &Diagnostic, pkg: &str, bundle: &str) -> Vec<String> {
    match &d.object.channel {
        Some(c) => vec![c.clone()],
        None => catalog
            .index()
            .package(pkg)
            .map(|p| {
                p.channels_listing(bundle)
                    .iter()
                    .map(|&id| catalog.blob(id).name().to_string())
                    .collect()
            })
            .unwrap_or_default(),
    }
}

impl PackageNode {
    fn tree(self, name: &str) -> Tree {
        Tree {
            message: format!("invalid package {}", go_quote(name)),
            children: self
                .leaves
                .iter()
                .map(|l| Tree::leaf(l))
                .chain(self.channels.into_iter().map(|(ch, c)| c.tree(&ch)))
                .chain(self.after.iter().map(|l| Tree::leaf(l)))
                .collect(),
        }
    }
}

impl ChannelNode {
    fn tree(self, name: &str) -> Tree {
        Tree {
            message: format!("invalid channel {}", go_quote(name)),
            children: self
                .leaves
                .iter()
                .map(|l| Tree::leaf(l))
                .chain(self.bundles.into_iter().map(|(b, leaves)| Tree {
                    message: format!("invalid bundle {}", go_quote(&b)),
                    children: leaves.iter().map(|l| Tree::leaf(l)).collect(),
                }))
                .chain(self.after.iter().map(|l| Tree::leaf(l)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_is_drawn_like_opm() {
        let t = Tree {
            message: "invalid index".into(),
            children: vec![Tree {
                message: "invalid package \"foo\"".into(),
                children: vec![
                    Tree::leaf("default channel must be set"),
                    Tree {
                        message: "invalid channel \"alpha\"".into(),
                        children: vec![Tree {
                            message: "invalid bundle \"b\"".into(),
                            children: vec![Tree::leaf("skip[0] is empty"), Tree::leaf("x")],
                        }],
                    },
                ],
            }],
        };
        let mut out = String::new();
        t.render(&mut out, "");
        assert_eq!(
            out,
            "invalid index:\n└── invalid package \"foo\":\n    ├── default channel must be set\n    └── invalid channel \"alpha\":\n        └── invalid bundle \"b\":\n            ├── skip[0] is empty\n            └── x"
        );
    }
}
