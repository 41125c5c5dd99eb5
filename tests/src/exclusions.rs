//! The normalizations the gate-against-schema property tests (`gate_edges.rs`,
//! `render_differential.rs`) use to recognise a documented exclusion: a disagreement
//! between the gate and a JSON Schema validator that goes away once the value is
//! normalized is explained by that exclusion, not a bug.

use serde_json::Value;

/// `value` with every integral float written as an integer (`1.0` → `1`), where the
/// integer is exact in an `f64` (E1: serde reads `1.0` as no integer; JSON Schema says it
/// is one).
pub fn integral_floats_as_integers(value: &Value) -> Value {
    match value {
        Value::Number(number) if number.is_f64() => match number.as_f64() {
            Some(float) if float.fract() == 0.0 && float.abs() < 9e15 => Value::from(float as i64),
            _ => value.clone(),
        },
        Value::Array(items) => items.iter().map(integral_floats_as_integers).collect(),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, member)| (key.clone(), integral_floats_as_integers(member)))
                .collect(),
        ),
        other => other.clone(),
    }
}
