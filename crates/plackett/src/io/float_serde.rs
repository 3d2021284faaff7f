//! Serde for floating-point fields that may be non-finite. JSON has no
//! NaN or infinities (serde_json writes them as `null`, which then does not
//! read back as a number), so results write them as the strings `"NaN"`,
//! `"inf"`, `"-inf"` and read either form back — a saved result round-trips
//! bit for bit.

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{SerializeSeq, Serializer};

fn write<S: Serializer>(x: f64, s: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        s.serialize_f64(x)
    } else if x.is_nan() {
        s.serialize_str("NaN")
    } else if x > 0.0 {
        s.serialize_str("inf")
    } else {
        s.serialize_str("-inf")
    }
}

struct F64Visitor;

impl Visitor<'_> for F64Visitor {
    type Value = f64;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a number, null, \"NaN\", \"inf\" or \"-inf\"")
    }
    fn visit_f64<E>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
    fn visit_i64<E>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_u64<E>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_unit<E>(self) -> Result<f64, E> {
        Ok(f64::NAN)
    }
    fn visit_none<E>(self) -> Result<f64, E> {
        Ok(f64::NAN)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        match v {
            "NaN" => Ok(f64::NAN),
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            _ => Err(E::custom(format!("not a number: {v:?}"))),
        }
    }
}

/// `#[serde(with = "float_serde::f64")]`.
pub mod f64 {
    use super::*;

    /// Serialize, non-finite values as strings.
    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        write(*x, s)
    }

    /// Deserialize a number or one of the non-finite spellings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        d.deserialize_any(F64Visitor)
    }
}

/// `#[serde(with = "float_serde::count")]`: a weighted count, written as
/// an integer when it is one (`11`, not `11.0`: unit weights count
/// observations) and as a number otherwise; read back from either.
pub mod count {
    use super::*;

    /// Serialize a whole count as an integer.
    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
            s.serialize_i64(*x as i64)
        } else {
            write(*x, s)
        }
    }

    /// Deserialize a number or one of the non-finite spellings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        d.deserialize_any(F64Visitor)
    }
}

/// `#[serde(with = "float_serde::vec")]` for `Vec<f64>`.
pub mod vec {
    use super::*;

    struct Elem(f64);

    impl<'de> serde::Deserialize<'de> for Elem {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Elem, D::Error> {
            d.deserialize_any(F64Visitor).map(Elem)
        }
    }

    struct One(f64);

    impl serde::Serialize for One {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            write(self.0, s)
        }
    }

    /// Serialize, non-finite values as strings.
    pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for &x in v {
            seq.serialize_element(&One(x))?;
        }
        seq.end()
    }

    /// Deserialize numbers or non-finite spellings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        let v: Vec<Elem> = serde::Deserialize::deserialize(d)?;
        Ok(v.into_iter().map(|e| e.0).collect())
    }
}
