//! An upgrade question asked of a catalog: which package, which channel or channels, what the
//! cluster runs; answered with the queries of [`super::query`] under OLM v0 and v1 rules.

use super::channel::{ChannelGraph, PackageFacts};
use super::query::{Hop, Installed, NoPath, Offer, V1Path, path_to_head, v0_offers, v1_path};
use crate::catalog::Catalog;

/// Why an upgrade question cannot be asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error("no package {0:?} in the catalog")]
    NoPackage(String),
    #[error("no channel of {0} can be read")]
    NoChannel(String),
    /// What is installed names no entry in scope and is no version. `scope`: `package/channel`, or
    /// the package.
    #[error("{from:?} is neither an entry of {scope} nor a version")]
    UnknownFrom { from: String, scope: String },
}

/// An upgrade question: a cluster runs `from` (an entry or a version) of a package, and follows one
/// channel or — as OLM v1 does for a ClusterExtension that names none — every channel of the package.
pub struct UpgradeQuery {
    /// Never empty.
    graphs: Vec<ChannelGraph>,
    from: Installed,
    one_channel: bool,
}

/// OLM v0's answer in one channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V0Answer {
    /// The fewest upgrades to the head, or why there is no way.
    pub path: Result<Vec<Hop>, NoPath>,
    /// What OLM v0 offers right away, best first (empty when it cannot order the channel).
    pub offers: Vec<Offer>,
}

impl UpgradeQuery {
    /// Reads the package's channels in scope and what `from` names in them. `from` is an entry name
    /// known in any channel in scope, else a version (`1.2.0` or `v1.2.0`).
    pub fn new(
        catalog: &Catalog,
        package: &str,
        channel: Option<&str>,
        from: &str,
    ) -> Result<UpgradeQuery, QueryError> {
        let idx = catalog
            .index()
            .package(package)
            .ok_or_else(|| QueryError::NoPackage(package.to_string()))?;
        let facts = PackageFacts::read(catalog, idx);
        let graphs: Vec<ChannelGraph> = idx
            .channels
            .iter()
            .filter_map(|&id| ChannelGraph::build(catalog, &facts, id))
            .filter(|g| channel.is_none_or(|c| c == g.channel))
            .collect();
        let Some(first) = graphs.first() else {
            return Err(QueryError::NoChannel(package.to_string()));
        };
        let known = graphs
            .iter()
            .find_map(|g| Installed::resolve(g, from).filter(|i| i.name.is_some()));
        let Some(installed) = known.or_else(|| Installed::resolve(first, from)) else {
            return Err(QueryError::UnknownFrom {
                from: from.to_string(),
                scope: match channel {
                    Some(c) => format!("{package}/{c}"),
                    None => package.to_string(),
                },
            });
        };
        Ok(UpgradeQuery {
            graphs,
            from: installed,
            one_channel: channel.is_some(),
        })
    }

    /// The channels in scope, in catalog order: only the named one when a channel is named.
    pub fn graphs(&self) -> &[ChannelGraph] {
        &self.graphs
    }

    /// What is installed: an entry of any channel in scope, else a version (perhaps one no longer
    /// in the catalog).
    pub fn from(&self) -> &Installed {
        &self.from
    }

    /// The named channel, or the first channel in scope.
    pub fn first(&self) -> &ChannelGraph {
        &self.graphs[0]
    }

    /// OLM v0's answer, in the first channel in scope (OLM v0 follows one channel).
    pub fn v0(&self) -> V0Answer {
        let g = self.first();
        V0Answer {
            path: path_to_head(g, &self.from),
            offers: v0_offers(g, &self.from).unwrap_or_default(),
        }
    }

    /// Where OLM v1's upgrades lead. The target is the named channel's head, or else the highest
    /// version (and release) in scope; what is installed already counts as reaching it when it is the target.
    pub fn v1(&self) -> V1Path {
        let refs: Vec<&ChannelGraph> = self.graphs.iter().collect();
        let target = match (self.one_channel, self.first().chain.head()) {
            (true, Some(h)) => Some(h.to_string()),
            _ => refs
                .iter()
                .flat_map(|g| g.graph.node_weights())
                .max_by(|a, b| {
                    a.version_release()
                        .cmp(&b.version_release())
                        .then(b.name.cmp(&a.name))
                })
                .map(|n| n.name.clone()),
        };
        let p = v1_path(&refs, &self.from, target.as_deref());
        let reached = p.reached || target.as_deref() == self.from.name.as_deref();
        V1Path { reached, ..p }
    }
}

impl V0Answer {
    /// Whether OLM v0 takes the way OLM v1 takes (`g`: the channel of this answer): the same
    /// entries, all the way to the target.
    pub fn same_way_as(&self, g: &ChannelGraph, v1: &V1Path) -> bool {
        match &self.path {
            Ok(hops) => {
                let names: Vec<&str> = hops.iter().map(|h| g.graph[h.to].name.as_str()).collect();
                let v1_names: Vec<&str> = v1.hops.iter().map(|h| h.to.as_str()).collect();
                names == v1_names && v1.reached
            }
            Err(_) => false,
        }
    }
}
