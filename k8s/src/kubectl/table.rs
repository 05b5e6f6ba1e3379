//! kubectl's tab writer (k8s.io/cli-runtime/pkg/printers/tabwriter.go:
//! Go's text/tabwriter with minimum width 6, padding 3, spaces): every
//! column but the last is padded to its widest cell plus 3 (at least 6);
//! the last is written as it is.

/// Appends `rows` (the header first, when given) aligned to `widths`,
/// which grow to fit (kubectl's writer remembers the widths of the chunks
/// it flushed before, so a later chunk never narrows a column).
pub fn write(out: &mut String, widths: &mut Vec<usize>, rows: &[Vec<String>]) {
    for r in rows {
        if widths.len() < r.len() {
            widths.resize(r.len(), 0);
        }
        for (i, cell) in r.iter().enumerate().take(r.len().saturating_sub(1)) {
            widths[i] = widths[i].max((cell.chars().count() + 3).max(6));
        }
    }
    for r in rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < r.len() {
                for _ in cell.chars().count()..widths[i] {
                    line.push(' ');
                }
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

#[cfg(test)]
/// One table, aligned on its own.
pub fn render(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    write(&mut out, &mut Vec::new(), rows);
    out
}

/// Cells from string slices.
pub fn row<const N: usize>(cells: [&str; N]) -> Vec<String> {
    cells.iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_the_widest_cell_plus_three_and_at_least_six() {
        let t = render(&[row(["NAME", "READY", "AGE"]), row(["a", "1/1", "5s"])]);
        assert_eq!(t, "NAME   READY   AGE\na      1/1     5s\n");
        let t = render(&[row(["NAME", "X"]), row(["web-12345", "y"])]);
        assert_eq!(t, "NAME        X\nweb-12345   y\n");
    }
}
