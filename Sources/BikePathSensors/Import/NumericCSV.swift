/// A CSV file of numbers with a header line, reduced to the columns an importer asks for.
/// Every problem is an ImportError naming the file, the line and the column.
/// Lines are at most `maxLineBytes` long: a file without newlines is refused at its
/// first line instead of being split, decoded and quoted whole (a 200 MB line took
/// 5.2 GB and made a 209 MB error message).
struct NumericCSV {
    /// A GoPro export's rows are under 200 bytes; its header under 300.
    static let maxLineBytes = 4096
    let path: String
    /// Values of each requested column, in row order.
    var columns: [String: [Double]]
    /// 1-based file line of each row, for error messages that point at the input.
    var lineNumbers: [Int]
    var rowCount: Int { lineNumbers.count }

    init(path: String, required: [String]) throws(ImportError) {
        try self.init(path: path, bytes: readWholeFile(path), required: required)
    }

    init(path: String, bytes: [UInt8], required: [String]) throws(ImportError) {
        self.path = path
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().makeIterator()
        func trimmed(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            var s = s
            while let l = s.last, l == 0x0D || l == 0x20 { s = s.dropLast() }
            while let f = s.first, f == 0x20 || f == 0xEF || f == 0xBB || f == 0xBF { s = s.dropFirst() }  // spaces, UTF-8 BOM
            return s
        }
        func checkLength(_ line: ArraySlice<UInt8>, _ number: Int) throws(ImportError) {
            guard line.count <= Self.maxLineBytes else {
                throw ImportError(
                    path: path, line: number,
                    message: "line is \(line.count) bytes long, over \(Self.maxLineBytes): not a CSV export")
            }
        }
        guard let (_, first) = lines.next(), !trimmed(first).isEmpty else {
            throw ImportError(path: path, line: 1, message: "empty file: expected a header line with \(required.joined(separator: ","))")
        }
        try checkLength(first, 1)
        let names = trimmed(first).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { String(decoding: trimmed($0), as: UTF8.self) }
        var indices: [Int] = []
        for r in required {
            guard let i = names.firstIndex(of: r) else {
                throw ImportError(
                    path: path, line: 1,
                    message: "missing column '\(r)' (found: \(names.joined(separator: ","))); is this the right file?")
            }
            indices.append(i)
        }
        var values = [[Double]](repeating: [], count: required.count)
        lineNumbers = []
        for (index, raw) in IteratorSequence(lines) {
            let line = index + 1
            try checkLength(raw, line)
            let row = trimmed(raw)
            if row.isEmpty { continue }
            let fields = row.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard fields.count == names.count else {
                throw ImportError(path: path, line: line, message: "expected \(names.count) fields, found \(fields.count)")
            }
            for (k, i) in indices.enumerated() {
                let text = String(decoding: trimmed(fields[i]), as: UTF8.self)
                guard let v = Double(text), v.isFinite else {
                    throw ImportError(path: path, line: line, message: "column \(required[k]): '\(text)' is not a number")
                }
                values[k].append(v)
            }
            lineNumbers.append(line)
        }
        guard !lineNumbers.isEmpty else {
            throw ImportError(path: path, line: 2, message: "no data rows after the header")
        }
        columns = Dictionary(uniqueKeysWithValues: zip(required, values))
    }

    func column(_ name: String) -> [Double] { columns[name] ?? [] }

    /// Checks that every value of a column lies in `range` (`what` says why it must).
    func requireWithin(_ name: String, _ range: ClosedRange<Double>, _ what: String) throws(ImportError) {
        let c = column(name)
        for i in c.indices where !range.contains(c[i]) {
            throw ImportError(path: path, line: lineNumbers[i], message: "\(name) \(c[i]) is out of range: \(what)")
        }
    }

    /// Checks that a time column never goes backwards.
    func requireNonDecreasing(_ name: String) throws(ImportError) {
        let c = column(name)
        for i in c.indices.dropFirst() where c[i] < c[i - 1] {
            throw ImportError(path: path, line: lineNumbers[i], message: "\(name) goes backwards (\(c[i - 1]) then \(c[i]))")
        }
    }
}
