/// A table aligned for a terminal: each column as wide as its widest cell, two spaces apart,
/// text left-aligned and numbers right-aligned.
struct TextTable {
    enum Alignment {
        case left, right
    }

    var columns: [(title: String, alignment: Alignment)]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        self.columns = columns.map { (title: $0.0, alignment: $0.1) }
    }

    mutating func append(_ row: [String]) {
        precondition(row.count == columns.count, "a row has one cell per column")
        rows.append(row)
    }

    /// The header and the rows, one line each, without trailing spaces.
    var lines: [String] {
        let all = [columns.map(\.title)] + rows
        let widths = columns.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { cells in
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return columns[column].alignment == .right ? padding + cell : cell + padding
            }
            .joined(separator: "  ")
            .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
    }

    var text: String { lines.joined(separator: "\n") }
}
