//! The normalizations the gate-against-schema property tests (`gate_edges.rs`,
//! `render_differential.rs`) use to recognise a documented exclusion: a disagreement
//! between the gate and a JSON Schema validator that goes away once the value is
//! normalized is explained by that exclusion, not a bug.

use serde_json::{Number, Value};

/// `value` with each number `replace` gives a replacement for replaced, at any depth.
fn numbers_replaced(value: &Value, replace: &dyn Fn(&Number) -> Option<Value>) -> Value {
    match value {
        Value::Number(number) => replace(number).unwrap_or_else(|| value.clone()),
        Value::Array(items) => items
            .iter()
            .map(|item| numbers_replaced(item, replace))
            .collect(),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, member)| (key.clone(), numbers_replaced(member, replace)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `value` with every integral float written as an integer (`1.0` → `1`), where the
/// integer is exact in an `f64` (E1: serde reads `1.0` as no integer; JSON Schema says it
/// is one).
pub fn integral_floats_as_integers(value: &Value) -> Value {
    numbers_replaced(value, &|number| {
        let float = number.as_f64().filter(|_| number.is_f64())?;
        (float.fract() == 0.0 && float.abs() < 9e15).then(|| Value::from(float as i64))
    })
}

/// `value` with every number equal to a 128-bit bound the schema states just past the
/// type's end (2^128 for `u128`, 2^127 for `i128`: see `toolset::schema::TypeRange`)
/// written as the double just below it (E6: the schema admits the bound, serde does not).
pub fn past_128_bit_ends_moved_inside(value: &Value) -> Value {
    numbers_replaced(value, &|number| {
        let float = number.as_f64()?;
        (float == 2f64.powi(128) || float == 2f64.powi(127)).then(|| Value::from(float.next_down()))
    })
}
