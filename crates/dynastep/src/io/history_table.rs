//! Reading a time history back: the CSV that [`super::history::HistoryWriter`] writes, or any CSV
//! with a time column `t` (a reference solution), as named columns of numbers.

use std::io::Read;

/// A time history held in memory: `names.len()` columns of equal length, one row per sample.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HistoryTable {
    /// Column names, in file order (`t` first in dynastep's histories).
    pub names: Vec<String>,
    /// The columns (`names.len()` vectors of `rows()` values).
    pub columns: Vec<Vec<f64>>,
    /// True when the file ended in a row that is not complete (a run killed while writing, or
    /// a hand-edited file): the rows before it are kept.
    pub truncated: bool,
    /// Rows left out because they were incomplete or not numeric (anywhere in the file; the
    /// rows after them are kept).
    pub skipped_rows: usize,
}

/// Why a time history cannot be read or searched: the message names the file or the pattern.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct HistoryError(pub String);

impl HistoryTable {
    /// Reads a CSV with a header row. A row that is incomplete or not numeric is left out and
    /// counted in `skipped_rows` (the rows after it are kept); `truncated` is set when the last
    /// row is such a row. An empty cell reads as NaN.
    ///
    /// # Errors
    /// A message naming `source` (the file, for messages) when the header is missing or has no
    /// column `t`.
    pub fn read<R: Read>(input: R, source: &str) -> Result<Self, HistoryError> {
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(input);
        let names: Vec<String> = reader
            .headers()
            .map_err(|e| HistoryError(format!("{source}: cannot read the header row: {e}")))?
            .iter()
            .map(|s| s.trim().to_string())
            .collect();
        if !names.iter().any(|n| n == "t") {
            return Err(HistoryError(format!(
                "{source}: no column `t` in the header (a time history starts with t [s])"
            )));
        }
        let mut table = HistoryTable {
            columns: vec![Vec::new(); names.len()],
            names,
            truncated: false,
            skipped_rows: 0,
        };
        for record in reader.records() {
            let width = table.names.len();
            let values: Option<Vec<f64>> = record.ok().filter(|r| r.len() == width).and_then(|r| {
                r.iter()
                    .map(|s| match s.trim() {
                        "" => Some(f64::NAN),
                        v => v.parse().ok(),
                    })
                    .collect()
            });
            table.truncated = values.is_none();
            let Some(values) = values else {
                table.skipped_rows += 1;
                continue;
            };
            for (col, v) in table.columns.iter_mut().zip(values) {
                col.push(v);
            }
        }
        Ok(table)
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// The column called `name`, if any.
    pub fn column(&self, name: &str) -> Option<&[f64]> {
        self.index(name).map(|i| self.columns[i].as_slice())
    }

    /// The index of the column called `name`, if any.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// The time column `t` \[s\] (present: [`HistoryTable::read`] checks it).
    pub fn t(&self) -> &[f64] {
        self.column("t").unwrap_or(&[])
    }

    /// Indices of the columns whose names match the shell-style `pattern` (`*`, `?`, `[..]`, as in
    /// `crank.*` or `*.theta`), in file order, `t` and `h` excluded unless named exactly.
    ///
    /// # Errors
    /// A message when the pattern is not valid.
    pub fn matching(&self, pattern: &str) -> Result<Vec<usize>, HistoryError> {
        let glob = glob::Pattern::new(pattern)
            .map_err(|e| HistoryError(format!("column pattern `{pattern}`: {e}")))?;
        Ok((0..self.names.len())
            .filter(|&i| {
                let n = &self.names[i];
                glob.matches(n) && (pattern == n || (n != "t" && n != "h"))
            })
            .collect())
    }

    /// The pairs of columns `<name>.x`, `<name>.y` (bodies, point masses and markers), as
    /// (name, x index, y index), in file order.
    pub fn planar_points(&self) -> Vec<(String, usize, usize)> {
        self.names
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                let stem = n.strip_suffix(".x")?;
                let j = self.index(&format!("{stem}.y"))?;
                Some((stem.to_string(), i, j))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_columns_and_stops_at_an_incomplete_row() {
        let text = "t,h,a.x,a.y,b\n0,0,1,2,3\n0.5,0.5,1.5,,4\n1.0,0.5,2";
        let t = HistoryTable::read(text.as_bytes(), "x.csv").unwrap();
        assert_eq!(t.rows(), 2);
        assert!(t.truncated);
        assert_eq!(t.t(), &[0.0, 0.5]);
        assert!(t.column("a.y").unwrap()[1].is_nan());
        assert_eq!(t.matching("a.*").unwrap(), vec![2, 3]);
        assert_eq!(t.matching("*").unwrap(), vec![2, 3, 4]);
        assert_eq!(t.matching("t").unwrap(), vec![0]);
        assert_eq!(t.planar_points(), vec![("a".to_string(), 2, 3)]);
        assert!(t.matching("[").is_err());
    }

    /// One bad row in the middle is left out, not the 46 good rows after it (found by hostile
    /// input on `plot`).
    #[test]
    fn a_bad_row_in_the_middle_loses_only_itself() {
        let mut text = String::from("t,x\n0,1\n");
        text.push_str("0.1,oops\n");
        for k in 2..48 {
            text.push_str(&format!("{},{k}\n", f64::from(k) * 0.1));
        }
        let t = HistoryTable::read(text.as_bytes(), "x.csv").unwrap();
        assert_eq!((t.rows(), t.skipped_rows, t.truncated), (47, 1, false));
        assert_eq!(t.column("x").unwrap()[46], 47.0);
    }

    #[test]
    fn refuses_a_file_without_time() {
        let e = HistoryTable::read("x,y\n1,2\n".as_bytes(), "r.csv").unwrap_err();
        assert!(e.0.contains("r.csv") && e.0.contains("`t`"), "{e}");
    }
}
