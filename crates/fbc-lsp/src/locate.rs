//! What the cursor is on in a catalog file: the blob, the path of keys and indices down to the
//! node under it, and what that node names (a bundle, a channel, a package, a skipRange, an image).

use fbc_core::catalog::node::{Kind, Node};
use fbc_core::catalog::{BlobId, Catalog, FileId, schema};

/// One step down a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// The node under a byte offset.
pub struct Found<'n> {
    pub path: Vec<Step>,
    pub node: &'n Node,
    /// The offset is on the key of the last step, not on its value.
    pub on_key: bool,
}

fn contains(n: &Node, offset: usize) -> bool {
    let p = n.pos();
    p.is_real() && (p.start as usize) <= offset && offset <= p.end as usize
}

/// The deepest node of `node` holding `offset`.
pub fn node_at(node: &Node, offset: usize) -> Option<Found<'_>> {
    let mut found = Found {
        path: Vec::new(),
        node,
        on_key: false,
    };
    let mut here = node;
    'down: loop {
        match &here.kind {
            Kind::Map(entries) => {
                for e in entries.iter() {
                    if contains(&e.key, offset) {
                        found.path.push(Step::Key(e.key_str().to_string()));
                        found.node = &e.value;
                        found.on_key = true;
                        return Some(found);
                    }
                    if contains(&e.value, offset) {
                        found.path.push(Step::Key(e.key_str().to_string()));
                        found.node = &e.value;
                        here = &e.value;
                        continue 'down;
                    }
                }
                return Some(found);
            }
            Kind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    if contains(item, offset) {
                        found.path.push(Step::Index(i));
                        found.node = item;
                        here = item;
                        continue 'down;
                    }
                }
                return Some(found);
            }
            _ => return Some(found),
        }
    }
}

/// What a node names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    Bundle(String),
    Channel(String),
    Package(String),
    SkipRange {
        channel: String,
        entry: String,
        range: String,
    },
    Image(String),
}

/// The cursor's place in a catalog file.
pub struct Place<'c> {
    pub blob: BlobId,
    pub package: String,
    pub found: Found<'c>,
    /// What the node under the cursor names, when it names something.
    pub named: Option<Named>,
    /// The channel entry the cursor is in (`(channel, entry)`), when in one.
    pub entry: Option<(String, String)>,
}

fn key(s: &Step) -> Option<&str> {
    match s {
        Step::Key(k) => Some(k),
        Step::Index(_) => None,
    }
}

/// The blob of `file` at `offset`, and what the cursor is on there.
pub fn place(cat: &Catalog, file: FileId, offset: usize) -> Option<Place<'_>> {
    let &blob = cat.files.get(file)?.blobs.iter().find(|&&b| {
        let bl = cat.blob(b);
        bl.start <= offset && offset <= bl.end && bl.value.pos().is_real()
    })?;
    let b = cat.blob(blob);
    let found = node_at(&b.value, offset)?;
    let value = found.node.as_str().map(str::to_string);
    let path: Vec<Option<&str>> = found.path.iter().map(key).collect();
    let package = crate::state::owner(cat, blob);
    let str_of = |n: &Node, k: &str| n.get_field(k).and_then(Node::as_str).map(str::to_string);
    let mut entry = None;
    let named = match b.schema() {
        schema::CHANNEL => {
            let channel = b.name().to_string();
            if let (Some(Step::Key(k)), Some(Step::Index(i))) =
                (found.path.first(), found.path.get(1))
                && k == "entries"
                && let Some(e) = b
                    .value
                    .get_field("entries")
                    .and_then(|n| n.as_seq()?.get(*i))
                && let Some(name) = str_of(e, "name")
            {
                entry = Some((channel.clone(), name));
            }
            match path.as_slice() {
                [Some("name")] => value.map(Named::Channel),
                [Some("package")] => value.map(Named::Package),
                [Some("entries"), None, Some("name" | "replaces")]
                | [Some("entries"), None, Some("skips"), None] => value.map(Named::Bundle),
                [Some("entries"), None, Some("skipRange")] => match (value, &entry) {
                    (Some(range), Some((c, e))) => Some(Named::SkipRange {
                        channel: c.clone(),
                        entry: e.clone(),
                        range,
                    }),
                    _ => None,
                },
                _ => None,
            }
        }
        schema::PACKAGE => match path.as_slice() {
            [Some("defaultChannel")] => value.map(Named::Channel),
            [Some("name")] => value.map(Named::Package),
            _ => None,
        },
        schema::BUNDLE => match path.as_slice() {
            [Some("name")] => value.map(Named::Bundle),
            [Some("package")] => value.map(Named::Package),
            [Some("image")] | [Some("relatedImages"), None, Some("image")] => {
                value.map(Named::Image)
            }
            _ => None,
        },
        schema::DEPRECATIONS => match path.as_slice() {
            [Some("package")] => value.map(Named::Package),
            [Some("entries"), None, Some("reference"), Some("name")] => {
                let i = match found.path.get(1) {
                    Some(Step::Index(i)) => *i,
                    _ => 0,
                };
                let reference = b
                    .value
                    .get_field("entries")
                    .and_then(|n| n.as_seq()?.get(i))
                    .and_then(|e| e.get_field("reference"));
                let kind = reference.and_then(|r| str_of(r, "schema"));
                match (kind.as_deref(), value) {
                    (Some(schema::BUNDLE), Some(v)) => Some(Named::Bundle(v)),
                    (Some(schema::CHANNEL), Some(v)) => Some(Named::Channel(v)),
                    (Some(schema::PACKAGE), Some(v)) => Some(Named::Package(v)),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    };
    let named = if found.on_key { None } else { named };
    Some(Place {
        blob,
        package,
        found,
        named,
        entry,
    })
}

/// The blob a name stands for in `package`.
pub fn definition(cat: &Catalog, package: &str, named: &Named) -> Option<BlobId> {
    let idx = cat.index().package(match named {
        Named::Package(p) => p,
        _ => package,
    })?;
    match named {
        Named::Bundle(b) => idx.bundle(b),
        Named::Channel(c) => idx.channel(c),
        Named::Package(_) => idx.packages.first().copied(),
        Named::SkipRange { .. } | Named::Image(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_node_under_an_offset_and_its_path() {
        let text = "schema: olm.channel\npackage: p\nname: stable\nentries:\n  - name: p.v1\n  - name: p.v2\n    replaces: p.v1\n    skips:\n      - p.v0\n";
        let mut diags = Vec::new();
        let docs = fbc_core::catalog::decode::decode(text, 0, "c.yaml", &mut diags);
        let n = &docs[0].node;
        let at = |s: &str| text.find(s).unwrap() + 1;
        let f = node_at(n, at("p.v1\n  -")).unwrap();
        assert_eq!(
            f.path,
            [
                Step::Key("entries".into()),
                Step::Index(0),
                Step::Key("name".into())
            ]
        );
        assert_eq!(f.node.as_str(), Some("p.v1"));
        let f = node_at(n, at("p.v0")).unwrap();
        assert_eq!(f.path.len(), 4);
        let f = node_at(n, at("replaces")).unwrap();
        assert!(f.on_key);
    }
}
