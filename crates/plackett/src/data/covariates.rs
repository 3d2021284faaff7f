//! Covariates of rankers: one row per ranker, numeric and categorical
//! columns, the partitioning variables of Plackett–Luce trees (Zeileis,
//! Hothorn & Hornik 2008; Turner, van Etten, Firth & Kosmidis 2020).

/// Code of a missing categorical value.
pub const MISSING_LEVEL: u32 = u32::MAX;

/// One covariate column.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Numbers; `NaN` where the value is missing.
    Numeric {
        /// One value per row.
        values: Vec<f64>,
    },
    /// Categories, ordered or not; `levels[codes[r]]` is row `r`'s value,
    /// [`MISSING_LEVEL`] where it is missing.
    Factor {
        /// Level names: in the declared order for an ordered factor, else
        /// sorted (as R's `factor` sorts a character column).
        levels: Vec<String>,
        /// One level index per row.
        codes: Vec<u32>,
        /// Whether the levels are ordered (splits keep them contiguous).
        ordered: bool,
    },
}

impl Column {
    /// Whether row `r` has no value.
    pub fn is_missing(&self, r: usize) -> bool {
        match self {
            Column::Numeric { values } => values[r].is_nan(),
            Column::Factor { codes, .. } => codes[r] == MISSING_LEVEL,
        }
    }

    /// `"numeric"`, `"ordered"` or `"categorical"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Column::Numeric { .. } => "numeric",
            Column::Factor { ordered: true, .. } => "ordered",
            Column::Factor { .. } => "categorical",
        }
    }
}

/// A covariate table: a key per row (the ranker it describes) and named
/// columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Covariates {
    /// The key column's name.
    pub key: String,
    /// Row keys, unique.
    pub keys: Vec<String>,
    /// Column names, in file order.
    pub names: Vec<String>,
    /// Columns, parallel to `names`.
    pub columns: Vec<Column>,
}

impl Covariates {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Index of the named column.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Whether row `r` misses a value in any column.
    pub fn row_incomplete(&self, r: usize) -> bool {
        self.columns.iter().any(|c| c.is_missing(r))
    }
}
