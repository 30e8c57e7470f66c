//! The Go structs opm decodes catalog objects and known property values into, as far as Go's
//! `encoding/json` cares: which field a key fills and what type it must be. Validation checks values
//! against them (`validate::shape`); a load that keeps only what validation reads checks some values
//! against them as it reads them (`yaml::Keep::Checked`).

use std::borrow::Cow;

/// A Go type as far as `encoding/json` cares.
pub enum Ty {
    Str,
    Bool,
    Int32,
    /// `[]byte`: a base64 string (standard alphabet, padded; line breaks ignored).
    Bytes,
    /// `json.RawMessage`: anything.
    Raw,
    /// A named string type (`v1alpha1.InstallModeType`).
    NamedStr(&'static str),
    Slice(&'static Ty),
    /// `map[string]T`.
    Map(&'static Ty),
    Struct(&'static StructTy),
}

pub struct StructTy {
    /// Qualified Go name, e.g. `declcfg.Package`.
    pub go: &'static str,
    pub fields: &'static [(&'static str, Ty)],
}

impl Ty {
    pub fn go_name(&self) -> Cow<'static, str> {
        match self {
            Ty::Str => "string".into(),
            Ty::Bool => "bool".into(),
            Ty::Int32 => "int32".into(),
            Ty::Bytes => "[]uint8".into(),
            Ty::Raw => "json.RawMessage".into(),
            Ty::NamedStr(n) => (*n).into(),
            Ty::Slice(t) => format!("[]{}", t.go_name()).into(),
            Ty::Map(t) => format!("map[string]{}", t.go_name()).into(),
            Ty::Struct(s) => s.go.into(),
        }
    }

    pub fn ours(&self) -> &'static str {
        match self {
            Ty::Str | Ty::NamedStr(_) => "a string",
            Ty::Bool => "true or false",
            Ty::Int32 => "a whole number",
            Ty::Bytes => "a base64 string",
            Ty::Raw => "any value",
            Ty::Slice(_) => "a list",
            Ty::Map(_) | Ty::Struct(_) => "an object",
        }
    }
}

macro_rules! structs {
    ($($name:ident = $go:literal { $($field:literal : $ty:expr),* $(,)? })*) => {
        $(pub static $name: StructTy = StructTy { go: $go, fields: &[$(($field, $ty)),*] };)*
        /// Every struct.
        #[cfg(test)]
        pub static ALL: &[&StructTy] = &[$(&$name),*];
    };
}

structs! {
    PROPERTY = "property.Property" { "type": Ty::Str, "value": Ty::Raw }
    ICON = "declcfg.Icon" { "base64data": Ty::Bytes, "mediatype": Ty::Str }
    PACKAGE = "declcfg.Package" {
        "schema": Ty::Str, "name": Ty::Str, "defaultChannel": Ty::Str, "icon": Ty::Struct(&ICON),
        "description": Ty::Str, "properties": Ty::Slice(&Ty::Struct(&PROPERTY)),
    }
    CHANNEL_ENTRY = "declcfg.ChannelEntry" {
        "name": Ty::Str, "replaces": Ty::Str, "skips": Ty::Slice(&Ty::Str), "skipRange": Ty::Str,
    }
    CHANNEL = "declcfg.Channel" {
        "schema": Ty::Str, "name": Ty::Str, "package": Ty::Str,
        "entries": Ty::Slice(&Ty::Struct(&CHANNEL_ENTRY)), "properties": Ty::Slice(&Ty::Struct(&PROPERTY)),
    }
    RELATED_IMAGE = "declcfg.RelatedImage" { "name": Ty::Str, "image": Ty::Str }
    BUNDLE = "declcfg.Bundle" {
        "schema": Ty::Str, "name": Ty::Str, "package": Ty::Str, "image": Ty::Str,
        "properties": Ty::Slice(&Ty::Struct(&PROPERTY)), "relatedImages": Ty::Slice(&Ty::Struct(&RELATED_IMAGE)),
    }
    REFERENCE = "declcfg.PackageScopedReference" { "schema": Ty::Str, "name": Ty::Str }
    DEPRECATION_ENTRY = "declcfg.DeprecationEntry" { "reference": Ty::Struct(&REFERENCE), "message": Ty::Str }
    DEPRECATION = "declcfg.Deprecation" {
        "schema": Ty::Str, "package": Ty::Str, "entries": Ty::Slice(&Ty::Struct(&DEPRECATION_ENTRY)),
    }

    PROP_PACKAGE = "property.Package" { "packageName": Ty::Str, "version": Ty::Str, "release": Ty::Str }
    PROP_PACKAGE_REQUIRED = "property.PackageRequired" { "packageName": Ty::Str, "versionRange": Ty::Str }
    PROP_GVK = "property.GVK" { "group": Ty::Str, "kind": Ty::Str, "version": Ty::Str }
    PROP_GVK_REQUIRED = "property.GVKRequired" { "group": Ty::Str, "kind": Ty::Str, "version": Ty::Str }
    PROP_BUNDLE_OBJECT = "property.BundleObject" { "data": Ty::Bytes }
    PROP_CHANNEL = "property.Channel" { "channelName": Ty::Str }

    APP_LINK = "v1alpha1.AppLink" { "name": Ty::Str, "url": Ty::Str }
    MAINTAINER = "v1alpha1.Maintainer" { "name": Ty::Str, "email": Ty::Str }
    INSTALL_MODE = "v1alpha1.InstallMode" {
        "type": Ty::NamedStr("v1alpha1.InstallModeType"), "supported": Ty::Bool,
    }
    GROUP_VERSION_KIND = "v1.GroupVersionKind" { "group": Ty::Str, "version": Ty::Str, "kind": Ty::Str }
    RESOURCE_REFERENCE = "v1alpha1.APIResourceReference" { "name": Ty::Str, "kind": Ty::Str, "version": Ty::Str }
    STATUS_DESCRIPTOR = "v1alpha1.StatusDescriptor" {
        "path": Ty::Str, "displayName": Ty::Str, "description": Ty::Str, "x-descriptors": Ty::Slice(&Ty::Str),
        "value": Ty::Raw,
    }
    SPEC_DESCRIPTOR = "v1alpha1.SpecDescriptor" {
        "path": Ty::Str, "displayName": Ty::Str, "description": Ty::Str, "x-descriptors": Ty::Slice(&Ty::Str),
        "value": Ty::Raw,
    }
    ACTION_DESCRIPTOR = "v1alpha1.ActionDescriptor" {
        "path": Ty::Str, "displayName": Ty::Str, "description": Ty::Str, "x-descriptors": Ty::Slice(&Ty::Str),
        "value": Ty::Raw,
    }
    CRD_DESCRIPTION = "v1alpha1.CRDDescription" {
        "name": Ty::Str, "version": Ty::Str, "kind": Ty::Str, "displayName": Ty::Str, "description": Ty::Str,
        "resources": Ty::Slice(&Ty::Struct(&RESOURCE_REFERENCE)),
        "statusDescriptors": Ty::Slice(&Ty::Struct(&STATUS_DESCRIPTOR)),
        "specDescriptors": Ty::Slice(&Ty::Struct(&SPEC_DESCRIPTOR)),
        "actionDescriptors": Ty::Slice(&Ty::Struct(&ACTION_DESCRIPTOR)),
    }
    API_SERVICE_DESCRIPTION = "v1alpha1.APIServiceDescription" {
        "name": Ty::Str, "group": Ty::Str, "version": Ty::Str, "kind": Ty::Str, "deploymentName": Ty::Str,
        "containerPort": Ty::Int32, "displayName": Ty::Str, "description": Ty::Str,
        "resources": Ty::Slice(&Ty::Struct(&RESOURCE_REFERENCE)),
        "statusDescriptors": Ty::Slice(&Ty::Struct(&STATUS_DESCRIPTOR)),
        "specDescriptors": Ty::Slice(&Ty::Struct(&SPEC_DESCRIPTOR)),
        "actionDescriptors": Ty::Slice(&Ty::Struct(&ACTION_DESCRIPTOR)),
    }
    CRD_DEFINITIONS = "v1alpha1.CustomResourceDefinitions" {
        "owned": Ty::Slice(&Ty::Struct(&CRD_DESCRIPTION)), "required": Ty::Slice(&Ty::Struct(&CRD_DESCRIPTION)),
    }
    API_SERVICE_DEFINITIONS = "v1alpha1.APIServiceDefinitions" {
        "owned": Ty::Slice(&Ty::Struct(&API_SERVICE_DESCRIPTION)),
        "required": Ty::Slice(&Ty::Struct(&API_SERVICE_DESCRIPTION)),
    }
    PROP_CSV_METADATA = "property.CSVMetadata" {
        "annotations": Ty::Map(&Ty::Str), "apiServiceDefinitions": Ty::Struct(&API_SERVICE_DEFINITIONS),
        "crdDescriptions": Ty::Struct(&CRD_DEFINITIONS), "description": Ty::Str, "displayName": Ty::Str,
        "installModes": Ty::Slice(&Ty::Struct(&INSTALL_MODE)), "keywords": Ty::Slice(&Ty::Str),
        "labels": Ty::Map(&Ty::Str), "links": Ty::Slice(&Ty::Struct(&APP_LINK)),
        "maintainers": Ty::Slice(&Ty::Struct(&MAINTAINER)), "maturity": Ty::Str, "minKubeVersion": Ty::Str,
        "nativeAPIs": Ty::Slice(&Ty::Struct(&GROUP_VERSION_KIND)), "provider": Ty::Struct(&APP_LINK),
    }
}

/// The struct opm decodes a property value of this type into (`None`: kept as raw JSON).
pub fn property_struct(type_: &str) -> Option<&'static StructTy> {
    use crate::catalog::model::property_type as t;
    Some(match type_ {
        t::PACKAGE => &PROP_PACKAGE,
        t::PACKAGE_REQUIRED => &PROP_PACKAGE_REQUIRED,
        t::GVK => &PROP_GVK,
        t::GVK_REQUIRED => &PROP_GVK_REQUIRED,
        t::BUNDLE_OBJECT => &PROP_BUNDLE_OBJECT,
        t::CSV_METADATA => &PROP_CSV_METADATA,
        t::CHANNEL => &PROP_CHANNEL,
        _ => return None,
    })
}

/// Whether the JSON key `key` fills the struct field named `name` (ASCII, as every field of opm's
/// structs is), as Go's `encoding/json` matches them: equal but for case, where case is Unicode's
/// simple folding; so besides ASCII letters, `ſ` (long s) folds with `s` and `K` (the Kelvin sign)
/// with `k`.
#[inline]
pub fn fills_field(key: &str, name: &str) -> bool {
    // Mostly the key is the name, or as long and another, or shorter.
    if key.len() == name.len() {
        return key == name || key.eq_ignore_ascii_case(name);
    }
    // `ſ` and `K` take two and three bytes for a letter's one: a key that folds to a name with
    // either is longer (and not ASCII).
    key.len() > name.len() && !key.is_ascii() && folds_to(key, name)
}

/// Whether the non-ASCII `key` folds to `name` with a long s or a Kelvin sign in it.
fn folds_to(key: &str, name: &str) -> bool {
    let mut n = name.bytes();
    let same = key.chars().all(|c| {
        let Some(b) = n.next() else {
            return false;
        };
        match c {
            'ſ' => b.eq_ignore_ascii_case(&b's'),
            '\u{212A}' => b.eq_ignore_ascii_case(&b'k'),
            c => c.is_ascii() && (c as u8).eq_ignore_ascii_case(&b),
        }
    });
    same && n.next().is_none()
}

/// The field of `st` that a JSON key fills: the exact name, else one differing only in case (Go's
/// `encoding/json`).
pub fn field(st: &'static StructTy, key: &str) -> Option<&'static (&'static str, Ty)> {
    named_field(st, key).or_else(|| st.fields.iter().find(|(n, _)| fills_field(key, n)))
}

/// The field of `st` named `key` exactly.
pub fn named_field(st: &'static StructTy, key: &str) -> Option<&'static (&'static str, Ty)> {
    let k = key.as_bytes();
    st.fields
        .iter()
        .find(|(n, _)| n.len() == k.len() && n.as_bytes().first() == k.first() && *n == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_name_reads_as_itself_in_yaml() {
        use crate::catalog::version_release::SUBSTITUTES_FOR;
        use crate::catalog::yaml::yaml11::{Plain, resolve_plain};
        let mut names = 0;
        for st in ALL {
            for (name, _) in st.fields {
                assert!(
                    matches!(resolve_plain(name), Plain::Str),
                    "{}.{name}",
                    st.go
                );
                assert!(
                    !name.eq_ignore_ascii_case(SUBSTITUTES_FOR),
                    "{}.{name}",
                    st.go
                );
                names += 1;
            }
        }
        assert!(names > 50, "{names} field names");
    }

    #[test]
    fn a_key_fills_a_field_as_go_folds_case() {
        assert!(fills_field("Keywords", "keywords"));
        assert!(fills_field("keywordſ", "keywords"));
        assert!(fills_field("\u{212A}ind", "kind"));
        assert!(fills_field("diſplayName", "displayName"));
        assert!(!fills_field("keyword", "keywords"));
        assert!(!fills_field("keywordsſ", "keywords"));
        assert!(!fills_field("keywordş", "keywords"));
        assert!(!fills_field("kéywords", "keywords"));
        assert_eq!(
            field(&PROP_CSV_METADATA, "keywordſ").map(|f| f.0),
            Some("keywords")
        );
    }
}
