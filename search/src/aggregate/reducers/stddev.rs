//! `STDDEV 1 @p`: sample standard deviation (n − 1) of the numeric values,
//! each array element counting; 0 for fewer than two values. Welford's
//! running algorithm, as RediSearch's `deviation.c`.

use super::{for_each_number, items, num, single_key, Accumulator, KeyResolver, Reducer, ReducerArgs};
use crate::aggregate::error::AggError;
use crate::aggregate::row::Row;
use crate::aggregate::value::Value;

struct StdDev {
    slot: usize,
    n: u64,
    mean: f64,
    m2: f64,
}

impl Accumulator for StdDev {
    fn add(&mut self, row: &Row) {
        let Some(v) = row.get(self.slot) else { return };
        let (mut n, mut mean, mut m2) = (self.n, self.mean, self.m2);
        for_each_number(v, |d| {
            n += 1;
            let delta = d - mean;
            mean += delta / n as f64;
            m2 += delta * (d - mean);
        });
        (self.n, self.mean, self.m2) = (n, mean, m2);
    }
    fn finish(&mut self) -> Value {
        let var = if self.n > 1 { self.m2 / (self.n - 1) as f64 } else { 0.0 };
        Value::Number(var.sqrt())
    }
    /// `[n, mean, m2]`: Welford's state, merged by Chan's parallel update (numerically
    /// stable, unlike a sum of squares).
    fn partial(&mut self) -> Value {
        Value::array(vec![Value::Number(self.n as f64), Value::Number(self.mean), Value::Number(self.m2)])
    }
    fn merge(&mut self, partial: &Value) {
        let [n, mean, m2] = items(partial) else { return };
        let (nb, mb, m2b) = (num(n) as u64, num(mean), num(m2));
        if nb == 0 {
            return;
        }
        if self.n == 0 {
            (self.n, self.mean, self.m2) = (nb, mb, m2b);
            return;
        }
        let (na, nb_f) = (self.n as f64, nb as f64);
        let n = self.n + nb;
        let delta = mb - self.mean;
        self.mean += delta * nb_f / n as f64;
        self.m2 += m2b + delta * delta * na * nb_f / n as f64;
        self.n = n;
    }
}

pub(super) fn build(
    a: &mut ReducerArgs<'_>,
    resolve: &mut KeyResolver<'_>,
) -> Result<Box<dyn Reducer>, AggError> {
    single_key(a, resolve, |slot| StdDev { slot, n: 0, mean: 0.0, m2: 0.0 })
}
