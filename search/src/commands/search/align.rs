//! A page's field order: RediSearch's rows share one lookup, whose keys come in the order the
//! loader first met their names.

use super::render::Row;
use crate::reply::Reply;

/// Orders each row's fields as RediSearch's page shares one lookup: its keys are created in
/// the order the loader first meets their names, the page's rows loaded in reply order (the
/// SORTBY attribute's key before any, for the sorter), and every row lists its fields in that
/// order. So a hash written `t z n` comes back `n t z` after a row that showed `n` first.
pub(super) fn align_fields(rows: &mut [Row]) {
    let mut keys = LookupKeys::default();
    for row in rows.iter_mut() {
        let Some(fields) = row.fields.as_mut() else { continue };
        let ranks: Vec<usize> = fields.iter().map(|(name, _)| keys.rank(name)).collect();
        if ranks.windows(2).all(|w| w[0] <= w[1]) {
            continue;
        }
        let mut ranked: Vec<(usize, (String, Reply))> = ranks.into_iter().zip(fields.drain(..)).collect();
        ranked.sort_by_key(|(rank, _)| *rank);
        fields.extend(ranked.into_iter().map(|(_, field)| field));
    }
}

/// A page's lookup keys in the order they were created (see [`align_fields`]): a few names,
/// looked up by a scan until there are more than [`LookupKeys::SCANNED`].
#[derive(Default)]
struct LookupKeys {
    names: Vec<String>,
    by_name: std::collections::HashMap<String, usize>,
}

impl LookupKeys {
    const SCANNED: usize = 32;

    /// The key of `name`, created when the page meets it first.
    fn rank(&mut self, name: &str) -> usize {
        if self.names.len() <= Self::SCANNED {
            if let Some(i) = self.names.iter().position(|n| n == name) {
                return i;
            }
        } else if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        let i = self.names.len();
        self.names.push(name.to_string());
        if self.names.len() > Self::SCANNED {
            if self.by_name.is_empty() {
                self.by_name.extend(self.names.iter().cloned().zip(0..));
            } else {
                self.by_name.insert(name.to_string(), i);
            }
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule written the plain way: ranks in a map, every row sorted by them (stably).
    fn naive(rows: &mut [Vec<(String, Reply)>]) {
        let mut order = std::collections::HashMap::new();
        for fields in rows.iter_mut() {
            for (name, _) in fields.iter() {
                let next = order.len();
                order.entry(name.clone()).or_insert(next);
            }
            fields.sort_by_key(|(name, _)| order[name]);
        }
    }

    #[test]
    fn rows_follow_the_order_names_were_first_met_with_few_and_many_names() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for names in [3u64, 10, 31, 33, 40, 90] {
            for _ in 0..20 {
                let pages: Vec<Vec<(String, Reply)>> = (0..next(12) + 1)
                    .map(|_| {
                        let mut row: Vec<(String, Reply)> = Vec::new();
                        for _ in 0..next(names) + 1 {
                            let n = format!("f{}", next(names));
                            if !row.iter().any(|(m, _)| *m == n) {
                                row.push((n, Reply::Int(next(100) as i64)));
                            }
                        }
                        row
                    })
                    .collect();
                let mut expected = pages.clone();
                naive(&mut expected);
                let mut rows: Vec<Row> = pages
                    .into_iter()
                    .map(|f| Row {
                        key: Vec::new(),
                        score: 0.0,
                        payload: None,
                        sortkey: None,
                        fields: Some(f),
                        order: None,
                        order_more: Vec::new(),
                        distance: None,
                        explain: None,
                        raw_id: None,
                    })
                    .collect();
                align_fields(&mut rows);
                let got: Vec<Vec<(String, Reply)>> =
                    rows.into_iter().map(|r| r.fields.unwrap_or_default()).collect();
                assert_eq!(got, expected, "{names} names");
            }
        }
    }
}
