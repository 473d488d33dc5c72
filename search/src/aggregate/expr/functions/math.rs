//! Math functions: `log abs ceil floor log2 exp sqrt` (RediSearch `math.c`).
//!
//! Contract: exactly one argument (`Invalid number of arguments for <f>`,
//! where `abs` reports its C name `fabs`); a non-number gives NaN.

use crate::aggregate::error::AggError;
use crate::aggregate::value::Value;

/// Applies a one-argument double function.
pub(super) fn unary(name: &str, args: &[Value], f: fn(f64) -> f64) -> Result<Value, AggError> {
    let [arg] = args else {
        return Err(AggError::new(format!("Invalid number of arguments for {name}")));
    };
    Ok(Value::Number(arg.to_number().map_or(f64::NAN, f)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn math_functions() {
        let n = |v: Value| match v {
            Value::Number(n) => n,
            _ => panic!("not a number"),
        };
        assert_eq!(n(unary("sqrt", &[Value::Number(16.0)], f64::sqrt).unwrap()), 4.0);
        assert_eq!(n(unary("sqrt", &[Value::str("16")], f64::sqrt).unwrap()), 4.0);
        assert!(n(unary("sqrt", &[Value::str("x")], f64::sqrt).unwrap()).is_nan());
        assert!(n(unary("log", &[Value::Null], f64::ln).unwrap()).is_nan());
        assert_eq!(unary("fabs", &[], f64::abs).unwrap_err().message, "Invalid number of arguments for fabs");
    }
}
