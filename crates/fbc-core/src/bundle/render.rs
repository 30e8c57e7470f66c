//! Rendering a registry+v1 bundle into the `olm.bundle` blob `opm render` prints: opm's property
//! list (de-duplicated and sorted as opm does), the manifests as `olm.bundle.object`s or one
//! `olm.csv.metadata`, and the related images.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::{ApiKey, BundleError, Object, RegistryBundle, TypedValue, codes, csv_metadata, str_of};
use crate::catalog::emit::{write_go_json, write_go_json_sorted};
use crate::text::gosort::{self, GoRelease};

/// How to render a bundle directory.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// The bundle's image reference (`image` and a related image); empty when `None`, like opm.
    pub image: Option<String>,
    /// Replace the `olm.bundle.object` properties by one `olm.csv.metadata`.
    pub csv_metadata: bool,
    /// How the related images are ordered.
    pub related: RelatedOrder,
}

/// The order of a rendered bundle's related images. `opm render` builds the list (the CSV's
/// related images, the bundle image, the containers' images), then sorts it by image with Go's
/// unstable `sort.Slice`, whose order for images listed under several names depends on the Go
/// release opm was built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelatedOrder {
    /// Sorted as `opm render` built with this Go release sorts them.
    Sorted(GoRelease),
    /// Left as the list is built, for a caller that sorts them later as the opm release it renders
    /// as would (a template's rendering: a bundle source's answer serves every release).
    AsBuilt,
}

impl Default for RelatedOrder {
    fn default() -> RelatedOrder {
        RelatedOrder::Sorted(GoRelease::default())
    }
}

/// Renders a registry+v1 bundle directory into the `olm.bundle` blob `opm render DIR` prints.
pub fn render_dir(dir: &Path, opts: &RenderOptions) -> Result<Value, BundleError> {
    render(&RegistryBundle::read_for_render(dir), opts)
}

/// [`render_dir`], with the files the rendering leaves out because they could not be read, each
/// as `file: why` (the file relative to `dir`).
pub fn render_dir_noting(
    dir: &Path,
    opts: &RenderOptions,
) -> Result<(Value, Vec<String>), BundleError> {
    let b = RegistryBundle::read_for_render(dir);
    let value = render(&b, opts)?;
    let unread = b
        .unread()
        .map(|d| format!("{}: {}", d.location.file, d.message))
        .collect();
    Ok((value, unread))
}

/// A property as opm builds it: type, value and the value's JSON text (for ordering).
struct Prop {
    type_: String,
    raw: String,
    value: Value,
}

impl Prop {
    fn typed(type_: &str, fields: &[(&str, &str)]) -> Prop {
        let mut m = Map::new();
        for (k, v) in fields {
            m.insert(k.to_string(), Value::String(v.to_string()));
        }
        let value = Value::Object(m);
        let mut raw = String::new();
        // opm builds these with HTML escaping off.
        write_go_json(&mut raw, &value, None, false, 0);
        Prop {
            type_: type_.into(),
            raw,
            value,
        }
    }

    fn from(t: &TypedValue) -> Prop {
        Prop {
            type_: t.type_.clone(),
            raw: t.raw.clone(),
            value: t.value.clone(),
        }
    }
}

/// Renders a bundle already read.
pub fn render(b: &RegistryBundle, opts: &RenderOptions) -> Result<Value, BundleError> {
    let csv = b.fatal()?;
    let version = b.version().map_err(BundleError::Version)?;
    let release = b.release().map_err(BundleError::Release)?;
    let parsed = Sorted::of(parser_properties(b, &version, &release), b)?;
    let mut props = parsed.properties(b, &version, &release);
    // opm's render moves bundle objects to the end, keeping their sorted order.
    if opts.csv_metadata {
        let meta = csv_metadata(&csv.value).map_err(|e| BundleError::CsvMetadata(Box::new(e)))?;
        props.push(Prop {
            type_: "olm.csv.metadata".into(),
            raw: String::new(),
            value: meta,
        });
    } else {
        let mut objects = bundle_objects(b);
        // By their JSON text `{"data":"…"}`, which orders as the data does: base64 holds no
        // character below the closing quote.
        objects.sort_by(|a, b| object_data(a).cmp(object_data(b)));
        props.extend(objects);
    }
    let image = opts.image.clone().unwrap_or_default();
    let related = related_images(&csv.value, &image, opts.related);
    Ok(blob(b, image, props, related))
}

/// Sorts a rendered bundle's `relatedImages` by image as `opm render` built with `go` does.
pub fn sort_related_images(bundle: &mut Value, go: GoRelease) {
    if let Some(list) = bundle
        .get_mut("relatedImages")
        .and_then(Value::as_array_mut)
    {
        gosort::slice(list, go, |a, b| str_of(a, "image") < str_of(b, "image"));
    }
}

/// The parser's property list: metadata properties, then the annotations' package, the CSV's
/// olm.properties and the provided GVKs; de-duplicated by text.
fn parser_properties(b: &RegistryBundle, version: &str, release: &str) -> Vec<Prop> {
    let mut listed: Vec<Prop> = b.properties.iter().map(Prop::from).collect();
    let mut derived = Vec::new();
    if !b.package().is_empty() {
        derived.push(package_prop(b.package(), version, release));
    }
    let annotation_props = b.csv_annotation_properties().unwrap_or_default();
    derived.extend(annotation_props.iter().map(Prop::from));
    for api in &b.provided_apis() {
        derived.push(Prop::typed(
            "olm.gvk",
            &[
                ("group", &api.group),
                ("kind", &api.kind),
                ("version", &api.version),
            ],
        ));
    }
    listed.extend(dedup(derived));
    dedup(listed)
}

fn package_prop(package: &str, version: &str, release: &str) -> Prop {
    let mut fields = vec![("packageName", package), ("version", version)];
    if !release.is_empty() {
        fields.push(("release", release));
    }
    Prop::typed("olm.package", &fields)
}

/// A GVK as `(group, kind, version)`.
type Gvk = (String, String, String);

/// The parser's properties and the bundle's dependencies, sorted into what render writes.
struct Sorted {
    provided_gvks: BTreeSet<Gvk>,
    required_gvks: BTreeSet<Gvk>,
    /// The last `olm.package` property: package, version, release.
    package: Option<(String, String, String)>,
    package_required: Vec<Prop>,
    others: Vec<Prop>,
}

impl Sorted {
    fn of(listed: Vec<Prop>, b: &RegistryBundle) -> Result<Sorted, BundleError> {
        let mut s = Sorted {
            provided_gvks: BTreeSet::new(),
            required_gvks: BTreeSet::new(),
            package: None,
            package_required: Vec::new(),
            others: Vec::new(),
        };
        for p in listed {
            match p.type_.as_str() {
                "olm.gvk" => {
                    s.provided_gvks.insert(gvk_of(&p.value));
                }
                "olm.package" => {
                    s.package = Some((
                        str_of(&p.value, "packageName").into(),
                        str_of(&p.value, "version").into(),
                        str_of(&p.value, "release").into(),
                    ));
                }
                _ => s.others.push(p),
            }
        }
        for d in &b.dependencies {
            match d.type_.as_str() {
                "olm.gvk" => {
                    s.required_gvks.insert(gvk_of(&d.value));
                }
                "olm.package" => s.package_required.push(Prop::typed(
                    "olm.package.required",
                    &[
                        ("packageName", str_of(&d.value, "packageName")),
                        ("versionRange", str_of(&d.value, "version")),
                    ],
                )),
                _ => s.others.push(Prop::from(d)),
            }
        }
        for api in b
            .required_apis()
            .map_err(|e| BundleError::Invalid(format!("get required apis: {e}")))?
        {
            s.required_gvks.insert((api.group, api.kind, api.version));
        }
        Ok(s)
    }

    /// The rendered properties (bundle objects aside), sorted by type and text.
    fn properties(self, b: &RegistryBundle, version: &str, release: &str) -> Vec<Prop> {
        let (pkg, ver, rel) = self
            .package
            .unwrap_or_else(|| (b.package().into(), version.into(), release.into()));
        let mut props = vec![package_prop(&pkg, &ver, &rel)];
        for (g, k, v) in &self.provided_gvks {
            props.push(Prop::typed(
                "olm.gvk",
                &[("group", g), ("kind", k), ("version", v)],
            ));
        }
        for (g, k, v) in &self.required_gvks {
            props.push(Prop::typed(
                "olm.gvk.required",
                &[("group", g), ("kind", k), ("version", v)],
            ));
        }
        props.extend(self.package_required);
        props.extend(self.others);
        props.sort_by(|a, b| (&a.type_, &a.raw).cmp(&(&b.type_, &b.raw)));
        props
    }
}

/// Every manifest as an `olm.bundle.object`: its JSON (keys sorted, HTML escaped) in base64.
fn bundle_objects(b: &RegistryBundle) -> Vec<Prop> {
    b.objects
        .iter()
        .map(|o| {
            // The manifest as Go's encoder writes it, keys sorted, written without sorting a copy
            // (or as it was written when read).
            let written;
            let json = match &o.json {
                Some(json) => json,
                None => {
                    let mut json = String::new();
                    write_go_json_sorted(&mut json, &o.value, true);
                    written = json;
                    &written
                }
            };
            let data = base64_simd::STANDARD.encode_to_string(json.as_bytes());
            let mut m = Map::new();
            m.insert("data".to_string(), Value::String(data));
            // Ordered by its data (`object_data`), so its text is not written.
            Prop {
                type_: "olm.bundle.object".into(),
                raw: String::new(),
                value: Value::Object(m),
            }
        })
        .collect()
}

/// The base64 data of a property `bundle_objects` made.
fn object_data(p: &Prop) -> &str {
    p.value["data"].as_str().unwrap_or_default()
}

/// The `olm.bundle` blob.
fn blob(b: &RegistryBundle, image: String, props: Vec<Prop>, related: Vec<Value>) -> Value {
    let mut blob = Map::new();
    blob.insert("schema".into(), Value::from("olm.bundle"));
    blob.insert("name".into(), Value::from(b.name()));
    blob.insert("package".into(), Value::from(b.package()));
    blob.insert("image".into(), Value::from(image));
    blob.insert(
        "properties".into(),
        Value::Array(
            props
                .into_iter()
                .map(|p| {
                    let mut m = Map::new();
                    m.insert("type".into(), Value::String(p.type_));
                    m.insert("value".into(), p.value);
                    Value::Object(m)
                })
                .collect(),
        ),
    );
    if !related.is_empty() {
        blob.insert("relatedImages".into(), Value::Array(related));
    }
    Value::Object(blob)
}

fn dedup(props: Vec<Prop>) -> Vec<Prop> {
    let mut seen = BTreeSet::new();
    props
        .into_iter()
        .filter(|p| seen.insert((p.type_.clone(), p.raw.clone())))
        .collect()
}

fn gvk_of(v: &Value) -> (String, String, String) {
    (
        str_of(v, "group").into(),
        str_of(v, "kind").into(),
        str_of(v, "version").into(),
    )
}

/// The CSV's related images, then the bundle image, then the images of the deployments' containers
/// and init containers not listed yet; sorted by image as opm sorts them when `order` says so.
fn related_images(csv: &Value, image: &str, order: RelatedOrder) -> Vec<Value> {
    let mut list: Vec<(String, String)> = csv
        .pointer("/spec/relatedImages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|r| {
            (
                str_of(r, "name").to_string(),
                str_of(r, "image").to_string(),
            )
        })
        .collect();
    let listed: BTreeSet<String> = list.iter().map(|(_, i)| i.clone()).collect();
    if !image.is_empty() && !listed.contains(image) {
        list.push((String::new(), image.to_string()));
    }
    let mut operator_images = BTreeSet::new();
    if csv
        .pointer("/spec/install/strategy")
        .and_then(Value::as_str)
        == Some("deployment")
    {
        for d in csv
            .pointer("/spec/install/spec/deployments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for which in ["containers", "initContainers"] {
                for c in d
                    .pointer(&format!("/spec/template/spec/{which}"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    operator_images.insert(str_of(c, "image").to_string());
                }
            }
        }
    }
    for img in operator_images {
        if !listed.contains(&img) {
            list.push((String::new(), img));
        }
    }
    // opm sorts them with Go's unstable sort.Slice by image alone: images listed under several
    // names end in the order its algorithm leaves them, which a stable sort would not give.
    if let RelatedOrder::Sorted(go) = order {
        gosort::slice(&mut list, go, |a, b| a.1 < b.1);
    }
    list.into_iter()
        .map(|(name, image)| {
            let mut m = Map::new();
            m.insert("name".into(), Value::String(name));
            m.insert("image".into(), Value::String(image));
            Value::Object(m)
        })
        .collect()
}

impl RegistryBundle {
    /// The CSV of a bundle that can be rendered, or why it cannot.
    fn fatal(&self) -> Result<&Object, BundleError> {
        if let Some(d) = self
            .diagnostics
            .iter()
            .find(|d| d.code == codes::NOT_A_BUNDLE)
        {
            return Err(BundleError::Unreadable(d.message.clone()));
        }
        if self.objects.is_empty() {
            return Err(BundleError::NoObjects);
        }
        let csv = self.csv().ok_or(BundleError::NoCsv)?;
        if let Some(p) = self.csv_type_problem() {
            return Err(BundleError::Invalid(format!(
                "the ClusterServiceVersion cannot be read: {p}"
            )));
        }
        match self.missing_owned_crds() {
            Err(e) => {
                return Err(BundleError::ProvidedApis {
                    bundle: self.name().into(),
                    message: e.to_string(),
                });
            }
            Ok(missing) if !missing.is_empty() => {
                let found: Vec<String> =
                    self.provided_apis().iter().map(ApiKey::to_string).collect();
                return Err(BundleError::ProvidedApis {
                    bundle: self.name().into(),
                    message: format!(
                        "couldn't find {} in bundle. found: [{}]",
                        missing[0].0,
                        found.join(" ")
                    ),
                });
            }
            Ok(_) => {}
        }
        if self.annotations_file.is_none() {
            return Err(BundleError::NoAnnotations);
        }
        Ok(csv)
    }
}
