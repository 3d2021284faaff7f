//! Which kind of model file a text is, by its `format` tag, so that a file
//! handed to the wrong reader is named for what it is ("a multiple-instance
//! model … read it with `plackett mil predict`") instead of failing on the
//! first field the reader expected.

// Every model file's format tag lives here, below the families that write
// them, so that this module can name a file's family without importing it.

/// The `format` tag of a saved Plackett–Luce ranking model file.
pub const RANKING_FORMAT: &str = "plackett-model";
/// The `format` tag of a saved PL mixture file.
pub const MIXTURE_FORMAT: &str = "plackett-mixture-model";
/// The `format` tag of a saved adherence model file.
pub const ADHERENCE_FORMAT: &str = "plackett-adherence-model";
/// The `format` tag of a saved PL-regression classifier file.
pub const CLASSIFIER_FORMAT: &str = "plackett-classifier/1";
/// The `format` tag of a saved multiple-instance model file.
pub const MIL_MODEL_FORMAT: &str = "plackett-mil-model/1";
/// The `format` tag of a saved Plackett–Luce tree (`plackett tree
/// --model-out`).
pub const TREE_FORMAT: &str = "plackett-tree-model/1";

/// The families of model file plackett writes; each family has one reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelFamily {
    /// Plackett–Luce models of rankings: one population, a mixture or
    /// rankers of different adherence (`fit --model-out`; `predict`).
    Rankings,
    /// The PL regression classifier (`classify fit --model-out`;
    /// `classify predict`).
    Classifier,
    /// Multiple-instance models (`mil fit --out`; `mil predict`).
    MultipleInstance,
    /// Plackett–Luce trees (`tree --model-out`; `predict` with a
    /// covariate table of new rankers).
    Tree,
}

impl ModelFamily {
    /// What the family's files are, in a few words ("a classifier model").
    pub fn name(self) -> &'static str {
        match self {
            ModelFamily::Rankings => "a Plackett–Luce model of rankings",
            ModelFamily::Classifier => "a classifier model",
            ModelFamily::MultipleInstance => "a multiple-instance model",
            ModelFamily::Tree => "a Plackett–Luce tree",
        }
    }

    /// Who writes the family's files and which command reads them.
    pub fn origin(self) -> &'static str {
        match self {
            ModelFamily::Rankings => {
                "written by `plackett fit --model-out`; read it with `plackett predict`"
            }
            ModelFamily::Classifier => {
                "written by `plackett classify fit --model-out`; read it with `plackett \
                 classify predict`"
            }
            ModelFamily::MultipleInstance => {
                "written by `plackett mil fit --out`; read it with `plackett mil predict`"
            }
            ModelFamily::Tree => {
                "written by `plackett tree --model-out`; read it with `plackett predict` and a \
                 covariate table of new rankers"
            }
        }
    }

    /// What the family's files are, who writes them and who reads them.
    pub fn describe(self) -> String {
        format!("{} ({})", self.name(), self.origin())
    }
}

/// The family a `format` tag belongs to; `None` for a tag plackett does
/// not write.
pub fn family_of_tag(tag: &str) -> Option<ModelFamily> {
    match tag {
        RANKING_FORMAT | MIXTURE_FORMAT | ADHERENCE_FORMAT => Some(ModelFamily::Rankings),
        CLASSIFIER_FORMAT => Some(ModelFamily::Classifier),
        MIL_MODEL_FORMAT => Some(ModelFamily::MultipleInstance),
        TREE_FORMAT => Some(ModelFamily::Tree),
        _ => None,
    }
}

/// The family whose `format` tag the text's top-level object carries, if
/// it is JSON with one plackett writes; `None` for anything else.
pub fn family_of(text: &str) -> Option<ModelFamily> {
    let v: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
    family_of_tag(v.get("format")?.as_str()?)
}

/// When a file of family `found` is handed to `reader`'s reader, the
/// message that says what it is (`"this is a multiple-instance model (…),
/// not …"`); `None` when they are the same family.
pub fn mismatch(found: ModelFamily, reader: ModelFamily) -> Option<String> {
    (found != reader).then(|| format!("this is {}, not {}", found.describe(), reader.name()))
}

/// [`mismatch`] for a file's text: `None` also when the text carries no
/// tag plackett writes (its reader then says what is wrong with it).
pub fn other_family(text: &str, reader: ModelFamily) -> Option<String> {
    mismatch(family_of(text)?, reader)
}

/// A data reader's error `e` on `text`, unless the text is a model file:
/// then what it is (`plackett fit model.json` would otherwise complain of
/// an unknown key "format"). Called on the error path only.
pub fn data_error(name: &str, text: &str, e: crate::error::Error) -> crate::error::Error {
    match family_of(text) {
        Some(f) => crate::error::Error::input(
            name,
            None,
            format!("this is {}, not a data file", f.describe()),
        ),
        None => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_told_apart_by_their_tags() {
        let tag = |f: &str| format!("{{\"format\": {f:?}, \"other\": [1, 2]}}");
        assert_eq!(family_of(&tag(RANKING_FORMAT)), Some(ModelFamily::Rankings));
        assert_eq!(family_of(&tag(MIXTURE_FORMAT)), Some(ModelFamily::Rankings));
        assert_eq!(
            family_of(&tag(ADHERENCE_FORMAT)),
            Some(ModelFamily::Rankings)
        );
        assert_eq!(
            family_of(&tag(CLASSIFIER_FORMAT)),
            Some(ModelFamily::Classifier)
        );
        assert_eq!(
            family_of(&tag(MIL_MODEL_FORMAT)),
            Some(ModelFamily::MultipleInstance)
        );
        assert_eq!(family_of(&tag("something else")), None);
        assert_eq!(family_of("not json"), None);
        assert_eq!(family_of("[1, 2]"), None);
        assert!(other_family(&tag(MIL_MODEL_FORMAT), ModelFamily::MultipleInstance).is_none());
        let m = other_family(&tag(MIL_MODEL_FORMAT), ModelFamily::Rankings).unwrap();
        assert!(m.starts_with("this is a multiple-instance model"), "{m}");
        assert!(m.ends_with("not a Plackett–Luce model of rankings"), "{m}");
    }
}
