//! The integer formats schemars writes into a schema (`"format": "uint32"`) and the range
//! of values serde accepts for each: the one table the canonical schema checks and every
//! consumer's schema rules read.

/// The inclusive range of values serde accepts for an integer format.
///
/// `min` is never positive and `max` never negative, so each side fits one type without
/// losing `i128::MIN` or `u128::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IntegerRange {
    /// The smallest value accepted.
    pub(crate) min: i128,
    /// The largest value accepted.
    pub(crate) max: u128,
    /// Whether the width is the target's pointer width (`isize`, `usize`), so the range
    /// differs between a 32- and a 64-bit build of the same program.
    pub(crate) pointer_sized: bool,
}

impl IntegerRange {
    const fn fixed(min: i128, max: u128) -> Self {
        IntegerRange {
            min,
            max,
            pointer_sized: false,
        }
    }

    /// Whether every value in the range fits `[lo, hi]`.
    pub(crate) fn within(self, lo: i128, hi: u128) -> bool {
        self.min >= lo && self.max <= hi
    }
}

/// Each format schemars emits for a Rust integer type, with that type's range.
///
/// `int`/`uint` are `isize`/`usize`: serde refuses what does not fit the target's pointer
/// width, so their range is the target's, not always the 64-bit one.
const FORMATS: [(&str, IntegerRange); 12] = [
    (
        "int8",
        IntegerRange::fixed(i8::MIN as i128, i8::MAX as u128),
    ),
    ("uint8", IntegerRange::fixed(0, u8::MAX as u128)),
    (
        "int16",
        IntegerRange::fixed(i16::MIN as i128, i16::MAX as u128),
    ),
    ("uint16", IntegerRange::fixed(0, u16::MAX as u128)),
    (
        "int32",
        IntegerRange::fixed(i32::MIN as i128, i32::MAX as u128),
    ),
    ("uint32", IntegerRange::fixed(0, u32::MAX as u128)),
    (
        "int64",
        IntegerRange::fixed(i64::MIN as i128, i64::MAX as u128),
    ),
    ("uint64", IntegerRange::fixed(0, u64::MAX as u128)),
    ("int128", IntegerRange::fixed(i128::MIN, i128::MAX as u128)),
    ("uint128", IntegerRange::fixed(0, u128::MAX)),
    (
        "int",
        IntegerRange {
            min: isize::MIN as i128,
            max: isize::MAX as u128,
            pointer_sized: true,
        },
    ),
    (
        "uint",
        IntegerRange {
            min: 0,
            max: usize::MAX as u128,
            pointer_sized: true,
        },
    ),
];

/// The range serde accepts for the integer `format`; `None` for a format that is not one
/// of schemars' integer formats.
pub(crate) fn integer_range(format: &str) -> Option<IntegerRange> {
    FORMATS
        .iter()
        .find(|(name, _)| *name == format)
        .map(|(_, range)| *range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;
    use serde::de::DeserializeOwned;

    /// The format schemars writes for `T`, and whether serde accepts `value` as a `T`.
    fn format_of<T: JsonSchema>() -> String {
        let schema = schemars::schema_for!(T);
        schema
            .get("format")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    }

    fn accepts<T: DeserializeOwned>(value: &str) -> bool {
        serde_json::from_str::<T>(value).is_ok()
    }

    /// The table's range for `T`'s format is exactly what serde accepts for `T`: both ends
    /// parse and one past either end does not (where serde_json holds it as an integer).
    fn range_is_what_serde_accepts<T: JsonSchema + DeserializeOwned>() {
        let format = format_of::<T>();
        let range = integer_range(&format)
            .unwrap_or_else(|| panic!("`{format}` is missing from the table"));
        assert!(accepts::<T>(&range.min.to_string()), "{format} min");
        assert!(accepts::<T>(&range.max.to_string()), "{format} max");
        if range.min > i128::from(i64::MIN) {
            assert!(
                !accepts::<T>(&(range.min - 1).to_string()),
                "{format} min - 1"
            );
        }
        if range.max < u128::from(u64::MAX) {
            assert!(
                !accepts::<T>(&(range.max + 1).to_string()),
                "{format} max + 1"
            );
        }
    }

    #[test]
    fn every_integer_format_has_the_range_serde_enforces() {
        range_is_what_serde_accepts::<i8>();
        range_is_what_serde_accepts::<u8>();
        range_is_what_serde_accepts::<i16>();
        range_is_what_serde_accepts::<u16>();
        range_is_what_serde_accepts::<i32>();
        range_is_what_serde_accepts::<u32>();
        range_is_what_serde_accepts::<i64>();
        range_is_what_serde_accepts::<u64>();
        range_is_what_serde_accepts::<isize>();
        range_is_what_serde_accepts::<usize>();
    }

    #[test]
    fn int_and_uint_are_the_targets_pointer_width() {
        // Two tables once disagreed here: one said `i64` for `int`, one `isize`.
        assert_eq!(format_of::<isize>(), "int");
        assert_eq!(format_of::<usize>(), "uint");
        let int = integer_range("int").expect("a format schemars emits");
        assert_eq!((int.min, int.max), (isize::MIN as i128, isize::MAX as u128));
        assert!(int.pointer_sized);
        let uint = integer_range("uint").expect("a format schemars emits");
        assert_eq!((uint.min, uint.max), (0, usize::MAX as u128));
        assert!(!integer_range("int64").expect("known").pointer_sized);
    }

    #[test]
    fn the_128_bit_formats_are_known_and_others_are_not() {
        assert_eq!(format_of::<u128>(), "uint128");
        assert_eq!(integer_range("uint128").map(|r| r.max), Some(u128::MAX));
        assert_eq!(integer_range("int128").map(|r| r.min), Some(i128::MIN));
        assert_eq!(integer_range("double"), None);
        assert_eq!(integer_range("date-time"), None);
    }
}
