//! `fbc-edit schema [NAME]`: the JSON Schemas of the catalog's and the pipeline's files, kept in
//! `schemas/` at the repository root and built into the program.

use clap::Args;

use super::exit;

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The schema to print (without it, the names are listed).
    pub name: Option<String>,
}

/// One schema: its name on the command line, what it describes, and its text.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    pub name: &'static str,
    pub about: &'static str,
    pub text: &'static str,
}

macro_rules! schemas {
    ($($name:literal => $about:literal),* $(,)?) => {
        /// Every schema, in the order `fbc-edit schema` lists them.
        pub const SCHEMAS: &[Schema] = &[$(Schema {
            name: $name,
            about: $about,
            text: include_str!(concat!("../../schemas/", $name, ".json")),
        }),*];
    };
}

schemas! {
    "catalog" => "any document of a catalog file (catalogs/*/*/catalog.yaml), by its schema",
    "olm.package" => "an olm.package object",
    "olm.channel" => "an olm.channel object",
    "olm.bundle" => "an olm.bundle object, with its properties",
    "olm.deprecations" => "an olm.deprecations object",
    "template" => "a catalog template of either kind (catalog-templates/*.yaml)",
    "olm.template.basic" => "a basic catalog template",
    "olm.semver" => "a semver catalog template",
    "ci" => "an operator's ci.yaml (operator-pipelines)",
    "release-config" => "a bundle's release-config.yaml (operator-pipelines)",
}

/// The schema of that name.
pub fn get(name: &str) -> Option<&'static Schema> {
    SCHEMAS.iter().find(|s| s.name == name)
}

fn listing() -> String {
    let width = SCHEMAS.iter().map(|s| s.name.len()).max().unwrap_or(0);
    SCHEMAS
        .iter()
        .map(|s| format!("  {:width$}  {}\n", s.name, s.about))
        .collect()
}

pub fn run(args: &SchemaArgs) -> i32 {
    match args.name.as_deref() {
        None => {
            print!(
                "JSON Schemas (draft-07); `fbc-edit schema NAME` prints one:\n{}",
                listing()
            );
            exit::OK
        }
        Some(name) => match get(name) {
            Some(s) => {
                print!("{}", s.text);
                exit::OK
            }
            None => {
                eprint!(
                    "fbc-edit: no schema named {name:?}; the schemas are:\n{}",
                    listing()
                );
                exit::USAGE
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_names_itself_and_is_draft_07() {
        for s in SCHEMAS {
            let v: serde_json::Value = serde_json::from_str(s.text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", s.name));
            assert_eq!(
                v["$schema"], "http://json-schema.org/draft-07/schema#",
                "{}",
                s.name
            );
            for key in ["$id", "title", "description"] {
                assert!(
                    v[key].as_str().is_some_and(|t| !t.is_empty()),
                    "{}: no {key}",
                    s.name
                );
            }
        }
        assert!(get("olm.bundle").is_some() && get("olm.bundles").is_none());
    }
}
