//! Typed views of blobs: packages, channels, bundles, deprecations and properties.
//!
//! Views borrow from the blob's [`Node`] and read it the way opm's Go decoder does: field names match
//! case-insensitively, unknown fields are ignored, `null` counts as absent, and a value of the wrong type
//! is an error that points at the value.

use super::node::{Kind, Node, Str};

/// A value of the wrong shape for its field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewError {
    /// Dotted path of the field, e.g. `entries[2].skips[0]`.
    pub field: String,
    pub expected: &'static str,
    pub found: &'static str,
    pub line: u32,
    pub col: u32,
}

impl std::fmt::Display for ViewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "field {} must be {}, found {}",
            self.field, self.expected, self.found
        )
    }
}

impl std::error::Error for ViewError {}

fn wrong(field: impl Into<String>, expected: &'static str, node: &Node) -> ViewError {
    ViewError {
        field: field.into(),
        expected,
        found: node.type_name(),
        line: node.pos().line,
        col: node.pos().col,
    }
}

/// An optional string field (`null` or missing → `None`). Very long strings left on disk read as `None`
/// for identifier fields; use the node for text fields.
fn opt_str<'a>(node: &'a Node, key: &str, path: &Path) -> Result<Option<&'a str>, ViewError> {
    match node.get_field(key) {
        None => Ok(None),
        Some(v) => match &v.kind {
            Kind::Null => Ok(None),
            Kind::String(s) => Ok(s.as_inline()),
            _ => Err(wrong(join(path, key), "a string", v)),
        },
    }
}

fn req_str<'a>(node: &'a Node, key: &str, path: &Path) -> Result<&'a str, ViewError> {
    Ok(opt_str(node, key, path)?.unwrap_or(""))
}

fn opt_text<'a>(node: &'a Node, key: &str, path: &Path) -> Result<Option<&'a Str>, ViewError> {
    match node.get_field(key) {
        None => Ok(None),
        Some(v) => match &v.kind {
            Kind::Null => Ok(None),
            Kind::String(s) => Ok(Some(s)),
            _ => Err(wrong(join(path, key), "a string", v)),
        },
    }
}

fn opt_seq<'a>(node: &'a Node, key: &str, path: &Path) -> Result<&'a [Node], ViewError> {
    match node.get_field(key) {
        None => Ok(&[]),
        Some(v) => match &v.kind {
            Kind::Null => Ok(&[]),
            Kind::Seq(items) => Ok(items),
            _ => Err(wrong(join(path, key), "an array", v)),
        },
    }
}

/// Where a field sits, worded only for an error (most reads have none): the blob itself (`""`) or
/// a dotted path such as `entries[2]`.
type Path = dyn std::fmt::Display;

/// `name[i]`, a [`Path`] written only when shown.
struct Indexed(&'static str, usize);

impl std::fmt::Display for Indexed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}[{}]", self.0, self.1)
    }
}

fn join(path: &Path, key: &str) -> String {
    let path = path.to_string();
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn check_object(node: &Node, path: &Path) -> Result<(), ViewError> {
    match node.kind {
        Kind::Map(_) => Ok(()),
        _ => {
            let path = path.to_string();
            Err(wrong(
                if path.is_empty() {
                    ".".to_string()
                } else {
                    path
                },
                "an object",
                node,
            ))
        }
    }
}

/// `olm.package`.
#[derive(Debug, Clone)]
pub struct Package<'a> {
    pub name: &'a str,
    pub default_channel: &'a str,
    pub description: Option<&'a Str>,
    pub icon: Option<Icon<'a>>,
    pub properties: Vec<Property<'a>>,
    pub node: &'a Node,
}

#[derive(Debug, Clone)]
pub struct Icon<'a> {
    pub base64data: Option<&'a Str>,
    pub mediatype: &'a str,
}

impl<'a> Package<'a> {
    pub fn read(node: &'a Node) -> Result<Self, ViewError> {
        check_object(node, &"")?;
        let icon = match node.get_field("icon") {
            None => None,
            Some(n) if n.is_null() => None,
            Some(n) => {
                check_object(n, &"icon")?;
                Some(Icon {
                    base64data: opt_text(n, "base64data", &"icon")?,
                    mediatype: req_str(n, "mediatype", &"icon")?,
                })
            }
        };
        Ok(Package {
            name: req_str(node, "name", &"")?,
            default_channel: req_str(node, "defaultChannel", &"")?,
            description: opt_text(node, "description", &"")?,
            icon,
            properties: Property::read_all(node)?,
            node,
        })
    }
}

/// `olm.channel`.
#[derive(Debug, Clone)]
pub struct Channel<'a> {
    pub name: &'a str,
    pub package: &'a str,
    pub entries: Vec<ChannelEntry<'a>>,
    pub properties: Vec<Property<'a>>,
    pub node: &'a Node,
}

/// One entry of a channel.
#[derive(Debug, Clone)]
pub struct ChannelEntry<'a> {
    pub name: &'a str,
    pub replaces: Option<&'a str>,
    pub skips: Vec<&'a str>,
    pub skip_range: Option<&'a str>,
    pub node: &'a Node,
}

impl<'a> Channel<'a> {
    pub fn read(node: &'a Node) -> Result<Self, ViewError> {
        check_object(node, &"")?;
        let mut entries = Vec::new();
        for (i, e) in opt_seq(node, "entries", &"")?.iter().enumerate() {
            let path = Indexed("entries", i);
            check_object(e, &path)?;
            let mut skips = Vec::new();
            for (j, s) in opt_seq(e, "skips", &path)?.iter().enumerate() {
                match &s.kind {
                    Kind::String(v) => skips.push(v.as_inline().unwrap_or("")),
                    Kind::Null => skips.push(""),
                    _ => return Err(wrong(format!("{path}.skips[{j}]"), "a string", s)),
                }
            }
            entries.push(ChannelEntry {
                name: req_str(e, "name", &path)?,
                replaces: opt_str(e, "replaces", &path)?.filter(|s| !s.is_empty()),
                skips,
                skip_range: opt_str(e, "skipRange", &path)?.filter(|s| !s.is_empty()),
                node: e,
            });
        }
        Ok(Channel {
            name: req_str(node, "name", &"")?,
            package: req_str(node, "package", &"")?,
            entries,
            properties: Property::read_all(node)?,
            node,
        })
    }

    pub fn entry(&self, name: &str) -> Option<&ChannelEntry<'a>> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// `olm.bundle`.
#[derive(Debug, Clone)]
pub struct Bundle<'a> {
    pub name: &'a str,
    pub package: &'a str,
    pub image: &'a str,
    pub properties: Vec<Property<'a>>,
    pub related_images: Vec<RelatedImage<'a>>,
    pub node: &'a Node,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedImage<'a> {
    pub name: &'a str,
    pub image: &'a str,
}

impl<'a> Bundle<'a> {
    pub fn read(node: &'a Node) -> Result<Self, ViewError> {
        check_object(node, &"")?;
        let mut related_images = Vec::new();
        for (i, r) in opt_seq(node, "relatedImages", &"")?.iter().enumerate() {
            let path = Indexed("relatedImages", i);
            check_object(r, &path)?;
            related_images.push(RelatedImage {
                name: req_str(r, "name", &path)?,
                image: req_str(r, "image", &path)?,
            });
        }
        Ok(Bundle {
            name: req_str(node, "name", &"")?,
            package: req_str(node, "package", &"")?,
            image: req_str(node, "image", &"")?,
            properties: Property::read_all(node)?,
            related_images,
            node,
        })
    }

    /// The `olm.package` property (the first one; validation checks there is exactly one).
    pub fn package_property(&self) -> Option<PackageProperty<'a>> {
        self.properties.iter().find_map(|p| match p.parse() {
            Ok(PropertyValue::Package(v)) => Some(v),
            _ => None,
        })
    }

    /// The bundle's version string from its `olm.package` property.
    pub fn version(&self) -> Option<&'a str> {
        self.package_property().map(|p| p.version)
    }
}

/// `olm.deprecations`.
#[derive(Debug, Clone)]
pub struct Deprecations<'a> {
    pub package: &'a str,
    pub entries: Vec<DeprecationEntry<'a>>,
    pub node: &'a Node,
}

#[derive(Debug, Clone)]
pub struct DeprecationEntry<'a> {
    /// `olm.package`, `olm.channel` or `olm.bundle`.
    pub schema: &'a str,
    pub name: &'a str,
    pub message: &'a str,
    pub node: &'a Node,
}

impl<'a> Deprecations<'a> {
    pub fn read(node: &'a Node) -> Result<Self, ViewError> {
        check_object(node, &"")?;
        let mut entries = Vec::new();
        for (i, e) in opt_seq(node, "entries", &"")?.iter().enumerate() {
            let path = Indexed("entries", i);
            check_object(e, &path)?;
            let reference = e.get_field("reference");
            let (schema, name) = match reference {
                None => ("", ""),
                Some(r) if r.is_null() => ("", ""),
                Some(r) => {
                    let rpath = format!("{path}.reference");
                    check_object(r, &rpath)?;
                    (req_str(r, "schema", &rpath)?, req_str(r, "name", &rpath)?)
                }
            };
            entries.push(DeprecationEntry {
                schema,
                name,
                message: req_str(e, "message", &path)?,
                node: e,
            });
        }
        Ok(Deprecations {
            package: req_str(node, "package", &"")?,
            entries,
            node,
        })
    }
}

/// Property type names.
pub mod property_type {
    pub const PACKAGE: &str = "olm.package";
    pub const PACKAGE_REQUIRED: &str = "olm.package.required";
    pub const GVK: &str = "olm.gvk";
    pub const GVK_REQUIRED: &str = "olm.gvk.required";
    pub const BUNDLE_OBJECT: &str = "olm.bundle.object";
    pub const CSV_METADATA: &str = "olm.csv.metadata";
    pub const CHANNEL: &str = "olm.channel";
    pub const CONSTRAINT: &str = "olm.constraint";
}

/// A `{type, value}` property.
#[derive(Debug, Clone)]
pub struct Property<'a> {
    pub type_: &'a str,
    pub value: &'a Node,
    pub node: &'a Node,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageProperty<'a> {
    pub package_name: &'a str,
    pub version: &'a str,
    pub release: Option<&'a str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageRequired<'a> {
    pub package_name: &'a str,
    pub version_range: &'a str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gvk<'a> {
    pub group: &'a str,
    pub kind: &'a str,
    pub version: &'a str,
}

/// A property decoded by type.
#[derive(Debug, Clone)]
pub enum PropertyValue<'a> {
    Package(PackageProperty<'a>),
    PackageRequired(PackageRequired<'a>),
    Gvk(Gvk<'a>),
    GvkRequired(Gvk<'a>),
    /// The base64 manifest, usually left on disk until asked for.
    BundleObject(Option<&'a Str>),
    CsvMetadata(&'a Node),
    Channel(&'a str),
    Constraint(&'a Node),
    Other(&'a Node),
}

impl<'a> Property<'a> {
    fn read_all(node: &'a Node) -> Result<Vec<Self>, ViewError> {
        let mut out = Vec::new();
        for (i, p) in opt_seq(node, "properties", &"")?.iter().enumerate() {
            let path = Indexed("properties", i);
            check_object(p, &path)?;
            static NULL: Node =
                Node::with(Kind::Null, super::node::Pos::NONE, super::node::Style::Any);
            out.push(Property {
                type_: req_str(p, "type", &path)?,
                value: p.get_field("value").unwrap_or(&NULL),
                node: p,
            });
        }
        Ok(out)
    }

    /// Decodes the value by type, checking field types the way opm does.
    pub fn parse(&self) -> Result<PropertyValue<'a>, ViewError> {
        use property_type as t;
        let v = self.value;
        let obj = |v: &'a Node| -> Result<(), ViewError> { check_object(v, &"value") };
        Ok(match self.type_ {
            t::PACKAGE => {
                obj(v)?;
                PackageProperty {
                    package_name: req_str(v, "packageName", &"value")?,
                    version: req_str(v, "version", &"value")?,
                    release: opt_str(v, "release", &"value")?.filter(|r| !r.is_empty()),
                }
                .into()
            }
            t::PACKAGE_REQUIRED => {
                obj(v)?;
                PropertyValue::PackageRequired(PackageRequired {
                    package_name: req_str(v, "packageName", &"value")?,
                    version_range: req_str(v, "versionRange", &"value")?,
                })
            }
            t::GVK | t::GVK_REQUIRED => {
                obj(v)?;
                let g = Gvk {
                    group: req_str(v, "group", &"value")?,
                    kind: req_str(v, "kind", &"value")?,
                    version: req_str(v, "version", &"value")?,
                };
                if self.type_ == t::GVK {
                    PropertyValue::Gvk(g)
                } else {
                    PropertyValue::GvkRequired(g)
                }
            }
            t::BUNDLE_OBJECT => {
                obj(v)?;
                PropertyValue::BundleObject(opt_text(v, "data", &"value")?)
            }
            t::CSV_METADATA => {
                obj(v)?;
                PropertyValue::CsvMetadata(v)
            }
            t::CHANNEL => {
                obj(v)?;
                PropertyValue::Channel(req_str(v, "channelName", &"value")?)
            }
            t::CONSTRAINT => PropertyValue::Constraint(v),
            _ => PropertyValue::Other(v),
        })
    }
}

impl<'a> From<PackageProperty<'a>> for PropertyValue<'a> {
    fn from(p: PackageProperty<'a>) -> Self {
        PropertyValue::Package(p)
    }
}
